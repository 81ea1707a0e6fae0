package insight

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// MaxHeadroom caps how many more allocs a headroom question places (the
// server's default job_max_count).
const MaxHeadroom = 10_000

// smallCluster: on clusters of at most this many nodes every single-node
// loss that moves other allocs too is played as a what-if.
// An N+1 answer from the per-node fits on a large cluster plays at most
// n1PlayBudget/nodes what-ifs (a what-if costs about the cluster's size),
// never fewer than exactN1 nor more than maxN1Plays; exactN1 is also how
// many losses (of the nodes holding the most of the group) it plays when
// there are no fits.
const (
	smallCluster = 16
	maxN1Plays   = 64
	exactN1      = 3
	n1PlayBudget = 20_000
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
// clusters of at most smallCluster nodes. On larger ones the formula is an
// upper bound, and each such node also has a lower bound: every other
// alloc placed again takes at most max over cpu, memory and disk of
// ceil(its size / the group's ask) of the group's places (at most one
// where a node takes at most one), so the answer is at least the formula
// less that sum. The losses are played lowest lower bound first until no
// unplayed lower bound is below the least answer known, so the minimum
// and the worst node are exact; the nodes left unplayed keep the
// formula's answer, marked as an upper bound (NodeLoss.UpperBound,
// NodeLoss.Others). The plays are capped (n1PlayBudget); should the cap
// stop the search, N1MinBound says the minimum may be lower, down to
// N1MinAtLeast.
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
		losses, out.N1MinAtLeast, err = nodeLossesByFormula(st, d, job, group, base)
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
	if out.N1MinBound = out.N1MinAtLeast < out.N1Min && base.fits != nil; !out.N1MinBound {
		out.N1MinAtLeast = out.N1Min
	}
	return out, nil
}

// nodeLossesByFormula is N+1 over every ready node from the per-node
// fits (see Headroom), sorted worst first: the least left, then the most
// of the group lost with the node (its allocs and its room), then name.
//
// It also answers the least any loss could leave: the least answer known,
// or an unplayed loss's lower bound below it.
func nodeLossesByFormula(st scheduler.State, d Deps, job *structs.Job, group string, base *room) ([]*structs.NodeLoss, int, error) {
	f := base.fits
	nodes, _, err := st.NodeSet(nil)
	if err != nil {
		return nil, 0, err
	}
	others, taken, err := othersOn(st, nodes, job, group, f)
	if err != nil {
		return nil, 0, err
	}
	type cand struct {
		loss   *structs.NodeLoss
		weight int
		lower  int // a lower bound of loss.More while loss.UpperBound
	}
	var cands []*cand
	for _, n := range nodes {
		if n.Status != structs.NodeStatusReady {
			continue
		}
		l := &structs.NodeLoss{NodeID: n.ID, Name: n.Name, More: f.lossMore(n.ID), Others: others[n.ID]}
		l.UpperBound = l.Others > 0
		cands = append(cands, &cand{loss: l, weight: f.live[n.ID] + f.per[n.ID], lower: l.More - taken[n.ID]})
	}
	order := func() {
		slices.SortStableFunc(cands, func(a, b *cand) int {
			return cmp.Or(cmp.Compare(a.loss.More, b.loss.More), cmp.Compare(b.weight, a.weight), cmp.Compare(a.loss.Name, b.loss.Name))
		})
	}
	// The nodes whose loss moves other allocs too are played as what-ifs:
	// all of them on a small cluster, else lowest lower bound first, in
	// rounds of one per core, while a lower bound is below the least
	// answer known.
	var bounded []*cand
	least := math.MaxInt
	for _, c := range cands {
		if c.loss.UpperBound {
			bounded = append(bounded, c)
		} else {
			least = min(least, c.loss.More)
		}
	}
	slices.SortStableFunc(bounded, func(a, b *cand) int { return cmp.Compare(a.lower, b.lower) })
	limit, round := len(bounded), max(runtime.GOMAXPROCS(0), 1)
	if len(cands) > smallCluster {
		limit = min(limit, max(exactN1, min(maxN1Plays, n1PlayBudget/len(cands))))
	}
	for played := 0; played < limit; {
		var play []*cand
		for _, c := range bounded[played:min(played+round, limit)] {
			if len(cands) > smallCluster && c.lower >= least {
				break
			}
			play = append(play, c)
		}
		if len(play) == 0 {
			break
		}
		if err := playLosses(st, d, job, group, base.bound, play, func(c *cand) *structs.NodeLoss { return c.loss }); err != nil {
			return nil, 0, err
		}
		for _, c := range play {
			least = min(least, c.loss.More)
		}
		played += len(play)
	}
	atLeast := least
	for _, c := range bounded {
		if c.loss.UpperBound {
			atLeast = min(atLeast, c.lower)
		}
	}
	order()
	out := make([]*structs.NodeLoss, len(cands))
	for i, c := range cands {
		out[i] = c.loss
	}
	return out, atLeast, nil
}

// playLosses plays the losses of the nodes of cands at once (one per
// core), each loss's answer replacing its formula's.
func playLosses[C any](st scheduler.State, d Deps, job *structs.Job, group string, bound int, cands []C, loss func(C) *structs.NodeLoss) error {
	errs := make([]error, len(cands))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			l := loss(c)
			more, err := afterLoss(st, d, job, group, l.NodeID, bound)
			if err == nil {
				l.More, l.UpperBound = more, false
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// othersOn counts, per ready node, the live allocs a loss of the node
// would place again besides the group's own (placedAgain), and bounds how
// many of the group's places they can take once placed elsewhere: placing
// an alloc of size o on a node that takes floor(free/ask) of the group
// lowers that by at most ceil(o/ask) in each of cpu, memory and disk (and
// its dynamic ports), and by at most one where a node takes at most one (a
// static port, distinct_hosts); each alloc counts at least one. The
// what-if runs with the scheduler configuration of fits (no preemption
// for the group's job type; other jobs' replacements preempting is not
// bounded here).
func othersOn(st scheduler.State, nodes []*structs.Node, job *structs.Job, group string, f *fits) (count, taken map[string]int, err error) {
	tg := job.LookupTaskGroup(group)
	one := hasStaticPorts(tg) || hasDistinctHosts(f.diag)
	ask, dyn := f.diag.Ask, dynamicPorts(tg)
	count, taken = map[string]int{}, map[string]int{}
	for _, n := range nodes {
		if n.Status != structs.NodeStatusReady {
			continue
		}
		allocs, err := st.AllocsByNodeTerminal(nil, n.ID, false)
		if err != nil {
			return nil, nil, err
		}
		for _, a := range allocs {
			if !placedAgain(a, job, group) {
				continue
			}
			count[n.ID]++
			k := 1
			if !one {
				o := a.AllocatedResources.Comparable()
				for _, dim := range [][2]int64{{o.CpuShares, ask.CpuShares}, {o.MemoryMB, ask.MemoryMB}, {o.DiskMB, ask.DiskMB}} {
					if dim[1] > 0 {
						k = max(k, int((dim[0]+dim[1]-1)/dim[1]))
					}
				}
				if dyn > 0 {
					ports := 0
					a.AllocatedResources.ForEachHostPort(func(int) { ports++ })
					k = max(k, (ports+dyn-1)/dyn)
				}
			}
			taken[n.ID] += k
		}
	}
	return count, taken, nil
}

// placedAgain reports whether losing a's node places a again elsewhere
// besides the group's own allocs: allocs of other groups and jobs, system
// jobs' aside (they are not placed elsewhere).
func placedAgain(a *structs.Allocation, job *structs.Job, group string) bool {
	if a.JobID == job.ID && a.Namespace == job.Namespace && a.TaskGroup == group {
		return false
	}
	return a.Job == nil || (a.Job.Type != structs.JobTypeSystem && a.Job.Type != structs.JobTypeSysBatch)
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
	for i, n := range cands {
		losses[i] = &structs.NodeLoss{NodeID: n.ID, Name: n.Name}
	}
	if err := playLosses(st, d, job, group, base.bound, losses, func(l *structs.NodeLoss) *structs.NodeLoss { return l }); err != nil {
		return nil, err
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
