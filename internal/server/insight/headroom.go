package insight

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// MaxHeadroom caps how many more allocs a headroom question places (the
// server's default job_max_count).
const MaxHeadroom = 10_000

// exactN1 is how many single-node losses are computed with the scheduler
// on large clusters (every node when there are at most smallCluster).
const (
	exactN1      = 3
	smallCluster = 16
)

// Headroom answers how many more allocs of the group fit: the job's
// scheduler places the group with its count raised by an upper bound (what
// the nodes' free resources could hold) on the snapshot, one alloc after
// the other as in any eval, and the placements it makes beyond the current
// count are the answer. N+1: for the nodes whose loss looks worst (every
// node on a small cluster), the loss is first played as a what-if (the
// node down, every job's evals run) and the headroom asked again.
func Headroom(st scheduler.State, d Deps, job *structs.Job, group string) (*structs.HeadroomResponse, error) {
	tg := job.LookupTaskGroup(group)
	if tg == nil {
		return nil, badInput("group: job %q has no task group %q", job.ID, group)
	}
	if job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch {
		return nil, badInput("job: %q is a %s job, which runs one alloc per eligible node: headroom counts service and batch groups", job.ID, job.Type)
	}
	if job.IsMultiInstanceParent() {
		return nil, badInput("job: %q is a periodic or parameterized parent, which is never placed itself", job.ID)
	}
	out := &structs.HeadroomResponse{JobID: job.ID, Group: group, Current: tg.Count}
	base, err := headroomOn(st, d, job, group, true, 0)
	if err != nil {
		return nil, err
	}
	more, perNode := base.more, base.perNode
	out.More, out.PerNode, out.Blocker, out.Ask = base.more, base.perNode, base.blocker, base.ask
	// N+1 candidates: the nodes holding the most of the group now and
	// after the headroom placements.
	nodes, _, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	allocs, err := st.AllocsByJob(nil, job.Namespace, job.ID, false)
	if err != nil {
		return nil, err
	}
	weight := map[string]int{}
	for _, a := range allocs {
		if a.TaskGroup == group && !a.TerminalStatus() {
			weight[a.NodeID] += 1 + MaxHeadroom // losing a placed alloc costs more than headroom
		}
	}
	for _, n := range nodes {
		weight[n.ID] += perNode[n.Name]
	}
	var cands []*structs.Node
	for _, n := range nodes {
		if n.Status == structs.NodeStatusReady {
			cands = append(cands, n)
		}
	}
	slices.SortStableFunc(cands, func(a, b *structs.Node) int {
		return cmp.Or(cmp.Compare(weight[b.ID], weight[a.ID]), cmp.Compare(a.Name, b.Name))
	})
	if len(cands) > smallCluster {
		cands = cands[:exactN1]
	}
	// The losses are independent questions on the same immutable
	// snapshot: answered in parallel, reported in candidate order.
	losses := make([]*structs.NodeLoss, len(cands))
	errs := make([]error, len(cands))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, n := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			w, err := newWhatIf(st, d, &structs.WhatIfRequest{Kind: WhatIfDown, Nodes: []string{n.ID}})
			if err == nil {
				err = w.run()
			}
			var r *room
			if err == nil {
				r, err = headroomOn(w.ov, d, job, group, false, base.bound)
			}
			if err == nil {
				losses[i] = &structs.NodeLoss{NodeID: n.ID, Name: n.Name, More: r.more}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	out.N1Min = more
	for i, l := range losses {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out.N1 = append(out.N1, l)
		if out.N1Worst == "" || l.More < out.N1Min {
			out.N1Min, out.N1Worst = l.More, l.Name
		}
	}
	return out, nil
}

// HeadroomShape answers for a hypothetical service job of one task with
// the given resources, in the given datacenters ("*" when none) and pool.
func HeadroomShape(st scheduler.State, d Deps, req *structs.OperatorHeadroomRequest) (*structs.HeadroomResponse, error) {
	if req.CPU < 0 || req.MemoryMB < 0 || req.DiskMB < 0 {
		return nil, badInput("CPU, MemoryMB, DiskMB: must not be negative")
	}
	if req.CPU == 0 && req.MemoryMB == 0 && req.DiskMB == 0 {
		return nil, badInput("CPU, MemoryMB: give at least one resource of the shape")
	}
	dcs := req.Datacenters
	if len(dcs) == 0 {
		dcs = []string{"*"}
	}
	job := &structs.Job{ID: "headroom-shape", Name: "headroom-shape", Namespace: structs.DefaultNamespace, Type: structs.JobTypeService,
		Priority: structs.JobDefaultPriority, Datacenters: dcs, NodePool: cmp.Or(req.NodePool, structs.AllNodePools),
		TaskGroups: []*structs.TaskGroup{{Name: "shape", Count: 0,
			EphemeralDisk: &structs.EphemeralDisk{SizeMB: req.DiskMB},
			Tasks:         []*structs.Task{{Name: "shape", Resources: &structs.Resources{CPU: req.CPU, MemoryMB: req.MemoryMB}}}}}}
	job.Canonicalize()
	ov := newOverlay(st)
	ov.setJob(job)
	r, err := headroomOn(ov, d, job, "shape", true, 0)
	if err != nil {
		return nil, err
	}
	return &structs.HeadroomResponse{Group: "shape", Ask: r.ask, More: r.more, PerNode: r.perNode, Blocker: r.blocker}, nil
}

// room is one headroom answer: more (negative when the current count does
// not fit), the placements per node name, why the next one does not fit,
// the group's ask, and the upper bound the scheduler was given.
type room struct {
	more    int
	perNode map[string]int
	blocker string
	ask     structs.ComparableResources
	bound   int
}

// headroomOn is the headroom of a group on st (see Headroom): more may be
// negative when the current count does not fit.
// bound > 0 is an upper bound known already (a node loss only lowers the
// headroom, so the N+1 runs reuse the answer's), which saves the
// diagnosis of every node.
func headroomOn(st scheduler.State, d Deps, job *structs.Job, group string, withBlocker bool, bound int) (*room, error) {
	stored, err := st.JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	if stored != nil {
		job = stored
	}
	var ask structs.ComparableResources
	if bound <= 0 {
		diag, err := scheduler.DiagnoseGroup(st, job, group)
		if err != nil {
			return nil, err
		}
		bound, ask = upperBound(diag), diag.Ask
	}
	tg := job.LookupTaskGroup(group)
	live := 0
	allocs, err := st.AllocsByJob(nil, job.Namespace, job.ID, false)
	if err != nil {
		return nil, err
	}
	for _, a := range allocs {
		if a.TaskGroup == group && !a.TerminalStatus() {
			live++
		}
	}
	missing := max(tg.Count-live, 0)
	raised := job.Copy()
	raised.LookupTaskGroup(group).Count = tg.Count + bound
	ov := newOverlay(st)
	ov.setJob(raised)
	idSrc := newIDs(d.Seed, "headroom/"+job.Namespace+"/"+job.ID+"/"+group)
	c, err := run(ov, d, idSrc, jobEval(idSrc, raised, structs.EvalTriggerJobRegister, d.now()), false)
	if err != nil {
		return nil, err
	}
	byID := placed(c, ov, job.ID, group)
	_, nodeMap, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	perNode := map[string]int{}
	total := 0
	for id, n := range byID {
		total += n
		name := id
		if nd := nodeMap[id]; nd != nil {
			name = nd.Name
		}
		perNode[name] += n
	}
	// Why the next one does not fit: the group with every placement made.
	blocker := ""
	if withBlocker {
		after := newOverlay(st)
		after.setJob(raised)
		for _, p := range c.plans {
			after.apply(p)
		}
		if d2, err := scheduler.DiagnoseGroup(after, raised, group); err == nil {
			if f := fixes(d2); len(f) > 0 {
				blocker = f[0]
			}
		}
	}
	if bound >= MaxHeadroom && total-missing >= MaxHeadroom {
		blocker = fmt.Sprintf("capped at %d", MaxHeadroom)
	}
	return &room{more: total - missing, perNode: perNode, blocker: blocker, ask: ask, bound: bound}, nil
}

// upperBound is how many more allocs the nodes could hold at most: per
// node eligible for the group, what its free resources divide into (one
// with distinct_hosts or a static port), plus one so the scheduler always
// meets the limit.
func upperBound(d *scheduler.GroupDiagnosis) int {
	total := 0
	static := hasStaticPorts(d.Group)
	distinct := hasDistinctHosts(d)
	for _, nd := range d.Nodes {
		k := MaxHeadroom
		ok := true
		for _, f := range nd.Failures {
			if f.Step != scheduler.StepResources {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, dim := range []string{"cpu", "cores", "memory", "disk"} {
			var asked int64
			switch dim {
			case "cpu":
				asked = d.Ask.CpuShares
			case "cores":
				asked = int64(d.Ask.Cores)
			case "memory":
				asked = d.Ask.MemoryMB
			case "disk":
				asked = d.Ask.DiskMB
			}
			if asked > 0 {
				k = min(k, int(max(freeOf(nd, dim), 0)/asked))
			}
		}
		if static || distinct {
			k = min(k, 1)
		}
		total = min(total+k, MaxHeadroom)
	}
	return total + 1
}

func hasStaticPorts(tg *structs.TaskGroup) bool {
	nets := slices.Clone(tg.Networks)
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			nets = append(nets, t.Resources.Networks...)
		}
	}
	for _, n := range nets {
		if len(n.ReservedPorts) > 0 {
			return true
		}
	}
	return false
}
