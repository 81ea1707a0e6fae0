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

// exactN1 is how many single-node losses that move other allocs too are
// played as what-ifs on large clusters (every one when there are at most
// smallCluster nodes).
const (
	exactN1      = 3
	smallCluster = 16
)

// Headroom answers how many more allocs of the group fit, and the same
// after losing each single node (N+1).
//
// The answer is the count at which the job's scheduler starts to block.
// When the group's placements are independent per node (fits.go: no
// preemption, distinct_property, reserved cores, devices, per-alloc
// volumes, pending replacements or updates), it is the sum over nodes of
// how many allocs of the group each one holds, which is what the
// scheduler reaches placing them one by one (it visits every node before
// it gives up); otherwise the scheduler places them one by one on the
// snapshot (headroomBySchedule).
//
// N+1 covers every ready node. Losing node X leaves sum_{i != X} k_i less
// the group's allocs on X, which are placed again first (negative: that
// many cannot be). That is exact when X holds nothing else to re-place;
// when it holds allocs of other jobs or groups, those compete for the room,
// so the loss is played as a what-if (the node down, every job's evals
// run) and the headroom asked again on the result: for every such node on
// clusters of at most smallCluster nodes, for the exactN1 such nodes with
// the lowest formula answer on larger ones; the rest keep the formula's
// answer, an upper bound (NodeLoss.UpperBound, NodeLoss.Others).
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
	out.More, out.PerNode, out.Blocker, out.Ask = base.more, base.perNode, base.blocker, base.ask
	var losses []*structs.NodeLoss
	if base.fits != nil {
		losses, err = nodeLossesByFormula(st, d, job, group, base)
	} else {
		losses, err = nodeLossesBySchedule(st, d, job, group, base)
	}
	if err != nil {
		return nil, err
	}
	out.N1 = losses
	out.N1Min = base.more
	if len(losses) > 0 {
		out.N1Min, out.N1Worst = losses[0].More, losses[0].Name
	}
	return out, nil
}

// nodeLossesByFormula is N+1 over every ready node from the per-node
// fits (see Headroom), sorted worst first: the least left, then the most
// of the group lost with the node (its allocs and its room), then name.
func nodeLossesByFormula(st scheduler.State, d Deps, job *structs.Job, group string, base *room) ([]*structs.NodeLoss, error) {
	f := base.fits
	nodes, _, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	others, err := othersOn(st, nodes, job, group)
	if err != nil {
		return nil, err
	}
	type cand struct {
		loss   *structs.NodeLoss
		weight int
	}
	var cands []*cand
	for _, n := range nodes {
		if n.Status != structs.NodeStatusReady {
			continue
		}
		l := &structs.NodeLoss{NodeID: n.ID, Name: n.Name, More: f.lossMore(n.ID), Others: others[n.ID]}
		l.UpperBound = l.Others > 0
		cands = append(cands, &cand{loss: l, weight: f.live[n.ID] + f.per[n.ID]})
	}
	order := func() {
		slices.SortStableFunc(cands, func(a, b *cand) int {
			return cmp.Or(cmp.Compare(a.loss.More, b.loss.More), cmp.Compare(b.weight, a.weight), cmp.Compare(a.loss.Name, b.loss.Name))
		})
	}
	order()
	// The nodes whose loss moves other allocs too: played as what-ifs.
	var play []*cand
	for _, c := range cands {
		if c.loss.UpperBound && (len(cands) <= smallCluster || len(play) < exactN1) {
			play = append(play, c)
		}
	}
	errs := make([]error, len(play))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, c := range play {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			more, err := afterLoss(st, d, job, group, c.loss.NodeID, base.bound)
			if err == nil {
				c.loss.More, c.loss.UpperBound = more, false
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	order()
	out := make([]*structs.NodeLoss, len(cands))
	for i, c := range cands {
		out[i] = c.loss
	}
	return out, nil
}

// othersOn counts, per node, the live allocs a loss of the node would
// have placed again besides the group's own: those of other groups and
// jobs (system jobs' are not placed elsewhere).
func othersOn(st scheduler.State, nodes []*structs.Node, job *structs.Job, group string) (map[string]int, error) {
	out := map[string]int{}
	for _, n := range nodes {
		if n.Status != structs.NodeStatusReady {
			continue
		}
		allocs, err := st.AllocsByNodeTerminal(nil, n.ID, false)
		if err != nil {
			return nil, err
		}
		for _, a := range allocs {
			if a.JobID == job.ID && a.Namespace == job.Namespace && a.TaskGroup == group {
				continue
			}
			if a.Job != nil && (a.Job.Type == structs.JobTypeSystem || a.Job.Type == structs.JobTypeSysBatch) {
				continue
			}
			out[n.ID]++
		}
	}
	return out, nil
}

// afterLoss plays the loss of one node as a what-if and asks the
// headroom again on the result.
func afterLoss(st scheduler.State, d Deps, job *structs.Job, group, nodeID string, bound int) (int, error) {
	w, err := newWhatIf(st, d, &structs.WhatIfRequest{Kind: WhatIfDown, Nodes: []string{nodeID}})
	if err == nil {
		err = w.run()
	}
	if err != nil {
		return 0, err
	}
	r, err := headroomOn(w.ov, d, job, group, false, bound)
	if err != nil {
		return 0, err
	}
	return r.more, nil
}

// nodeLossesBySchedule is N+1 when the fits are not exact: the loss of
// each node that holds the most of the group (every node on a small
// cluster) is played as a what-if, then the headroom placed again.
func nodeLossesBySchedule(st scheduler.State, d Deps, job *structs.Job, group string, base *room) ([]*structs.NodeLoss, error) {
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
		weight[n.ID] += base.perNode[n.Name]
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
	// snapshot: answered in parallel.
	losses := make([]*structs.NodeLoss, len(cands))
	errs := make([]error, len(cands))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, n := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			more, err := afterLoss(st, d, job, group, n.ID, base.bound)
			losses[i], errs[i] = &structs.NodeLoss{NodeID: n.ID, Name: n.Name, More: more}, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(losses, func(a, b *structs.NodeLoss) int { return cmp.Compare(a.More, b.More) })
	return losses, nil
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
	fits    *fits // the per-node fits the answer came from; nil: placed one by one
}

// headroomOn is the headroom of a group on st (see Headroom): from the
// per-node fits when they are exact, else placed one by one by the
// scheduler. more may be negative when the current count does not fit.
// bound > 0 is an upper bound known already (a node loss only lowers the
// headroom, so the N+1 runs reuse the answer's), which saves the blocker.
func headroomOn(st scheduler.State, d Deps, job *structs.Job, group string, withBlocker bool, bound int) (*room, error) {
	stored, err := st.JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	if stored != nil {
		job = stored
	}
	f, err := fitsOf(st, job, group)
	if err != nil {
		return nil, err
	}
	if f.inexact != "" {
		return headroomBySchedule(st, d, job, group, withBlocker, bound)
	}
	return f.room(st, d, withBlocker)
}

// headroomBySchedule raises the group's count by an upper bound and lets
// the job's scheduler place it, one alloc after the other as in any eval:
// the placements beyond the current count are the answer.
func headroomBySchedule(st scheduler.State, d Deps, job *structs.Job, group string, withBlocker bool, bound int) (*room, error) {
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
