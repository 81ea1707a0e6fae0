package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Descriptions of the stops the system scheduler decides.
const (
	allocNodeTainted    = "alloc not needed as node is tainted"
	allocNodeInfeasible = "alloc not needed as node no longer satisfies the job"
)

// systemScheduler runs one alloc of every task group on every feasible
// node of the job's datacenters and pool (system), or runs it there once
// to completion (sysbatch).
type systemScheduler struct {
	log      *slog.Logger
	state    State
	planner  Planner
	sysbatch bool
	now      func() time.Time
	ids      func() string  // nil: newID
	memo     *candidateMemo // shared by the schedulers of one Builtins; nil: none
	// stopwatch times placements (Deps.Stopwatch); nil: not timed.
	stopwatch func() func() time.Duration

	eval       *structs.Evaluation
	job        *structs.Job
	ctx        *evalContext
	plan       *structs.Plan
	planResult *structs.PlanResult
	out        outcome
	placed     map[string]string
	deferred   bool // destructive updates left for a rolling follow-up
	failedNode map[string]bool
	submitted  bool // a plan was submitted in some attempt
	finished   bool // the last plan's entry wrote the eval's final status
}

// newSystemScheduler returns the scheduler for system jobs, or with
// sysbatch for sysbatch jobs.
func newSystemScheduler(log *slog.Logger, state State, planner Planner, sysbatch bool, now func() time.Time) *systemScheduler {
	if log == nil {
		log = slog.Default()
	}
	return &systemScheduler{log: log, state: state, planner: planner, sysbatch: sysbatch, now: now}
}

// Process handles one evaluation.
func (s *systemScheduler) Process(eval *structs.Evaluation) error {
	s.eval = eval.Copy()
	s.out = outcome{planner: s.planner, eval: s.eval, ids: s.ids}
	if !handledTriggers[eval.TriggeredBy] {
		return s.out.finish(structs.EvalStatusFailed, fmt.Sprintf(evalDescUnhandledTrigger, eval.TriggeredBy))
	}
	err := retryMax(MaxSystemScheduleAttempts, s.attempt, func() bool { return progressMade(s.planResult) })
	var maxErr *maxAttemptsError
	switch {
	case err == nil && s.finished:
		return nil // the leader wrote the final status with the plan
	case errors.As(err, &maxErr):
		if err := s.out.createBlocked(true, s.ctx, s.now(), ""); err != nil {
			return err
		}
		return s.out.finish(structs.EvalStatusFailed, err.Error())
	case err != nil:
		return err
	case s.eval.Status == structs.EvalStatusBlocked && len(s.out.failed) > 0:
		return s.out.reblock(s.ctx)
	}
	return s.out.finishProcessed(s.submitted, false, s.job)
}

func (s *systemScheduler) attempt() (bool, error) {
	if err := s.computePlan(); err != nil {
		return false, err
	}
	if len(s.out.failed) > 0 && s.eval.Status != structs.EvalStatusBlocked && s.out.blocked == nil {
		if err := s.createBlocked(); err != nil {
			return false, err
		}
	}
	if s.deferred && s.out.next == nil {
		if err := s.createRollingEval(); err != nil {
			return false, err
		}
	}
	if s.plan.IsNoOp() && !s.eval.AnnotatePlan {
		return true, nil
	}
	s.submitted = true
	s.out.attachFinal(s.plan, s.placed)
	result, newState, err := s.planner.SubmitPlan(s.plan)
	s.planResult = result
	if err != nil {
		return false, err
	}
	if result != nil {
		s.finished = result.EvalFinished
		for _, allocs := range result.NodeAllocation {
			for _, a := range allocs {
				if tg, ok := s.placed[a.ID]; ok {
					s.out.queued[tg]--
				}
			}
		}
	}
	if newState != nil {
		s.state = newState
		return false, nil
	}
	if result == nil {
		return false, fmt.Errorf("planner returned no result and no state")
	}
	if full, expected, actual := result.FullCommit(s.plan); !full {
		return false, fmt.Errorf("plan committed %d of %d allocs without a state refresh", actual, expected)
	}
	return true, nil
}

// createBlocked writes the blocked eval; it is node-specific when the
// eval was, or when a single node lacked room, so the tracker can wake it
// on that node's capacity change.
func (s *systemScheduler) createBlocked() error {
	nodeID := s.eval.NodeID
	if !s.failedNode[nodeID] {
		// The eval's node had room (a node-update eval coalesced with
		// another node's event names that node): tie the blocked eval to
		// the node that lacked room, or to none.
		nodeID = ""
	}
	if nodeID == "" && len(s.failedNode) == 1 {
		for id := range s.failedNode {
			nodeID = id
		}
	}
	return s.out.createBlocked(false, s.ctx, s.now(), nodeID)
}

// createRollingEval writes the next stagger step of a rolling update.
func (s *systemScheduler) createRollingEval() error {
	var stagger time.Duration
	for _, tg := range s.job.TaskGroups {
		if tg.Update != nil && tg.Update.Stagger > stagger {
			stagger = tg.Update.Stagger
		}
	}
	if stagger == 0 {
		stagger = s.job.Update.Stagger
	}
	next := s.eval.NextRollingEval(idFrom(s.ids), stagger, s.now())
	if err := s.planner.CreateEval(next); err != nil {
		return err
	}
	s.out.next = next
	return nil
}

func (s *systemScheduler) computePlan() error {
	in, err := readJobState(s.state, s.eval)
	if err != nil {
		return err
	}
	s.job = in.job
	s.plan = &structs.Plan{EvalID: s.eval.ID, Priority: s.eval.Priority, Job: in.job, SnapshotIndex: s.state.LatestIndex()}
	s.ctx = newEvalContext(s.state, s.eval, in.job, s.plan, in.cfg, s.now())
	s.ctx.stopwatch = s.stopwatch
	s.ctx.nodes, s.ctx.jobAllocs = in.nodeMap, in.allocs
	s.ctx.setNodes(in.nodes, s.memo)
	s.out.failed, s.out.queued, s.placed = nil, map[string]int{}, map[string]string{}
	s.failedNode = map[string]bool{}
	s.deferred = false
	desired := map[string]*structs.DesiredUpdates{}
	s.plan.Annotations = &structs.PlanAnnotations{DesiredTGUpdates: desired}
	stopOlder(s.ctx, in.older, desired)
	if in.job == nil || in.job.Stop {
		s.stopAll(in.allocs, desired)
		return nil
	}
	stack := newPlacementStack(s.ctx, in.job, false, in.nodes, s.memo)
	defer stack.release()
	stack.system = true
	byNodeGroup := groupByNode(in.allocs)
	for _, tg := range in.job.TaskGroups {
		du := &structs.DesiredUpdates{}
		desired[tg.Name] = du
		s.out.queued[tg.Name] = 0
		s.reconcileGroup(stack, tg, in, byNodeGroup, du)
	}
	s.stopRemovedGroups(in.allocs, desired)
	return nil
}

func groupByNode(allocs []*structs.Allocation) map[[2]string][]*structs.Allocation {
	out := map[[2]string][]*structs.Allocation{}
	for _, a := range allocs {
		k := [2]string{a.NodeID, a.TaskGroup}
		out[k] = append(out[k], a)
	}
	return out
}

func (s *systemScheduler) stopAll(allocs []*structs.Allocation, desired map[string]*structs.DesiredUpdates) {
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		s.ctx.appendStop(a, allocJobStopped, "")
		du := desired[a.TaskGroup]
		if du == nil {
			du = &structs.DesiredUpdates{}
			desired[a.TaskGroup] = du
		}
		du.Stop++
	}
}

func (s *systemScheduler) stopRemovedGroups(allocs []*structs.Allocation, desired map[string]*structs.DesiredUpdates) {
	var removed []*structs.Allocation
	for _, a := range allocs {
		if s.job.LookupTaskGroup(a.TaskGroup) == nil {
			removed = append(removed, a)
		}
	}
	for _, a := range removed {
		if !a.TerminalStatus() {
			s.ctx.appendStop(a, allocNotNeeded, "")
			if desired[a.TaskGroup] == nil {
				desired[a.TaskGroup] = &structs.DesiredUpdates{}
			}
			desired[a.TaskGroup].Stop++
		}
	}
}

// reconcileGroup walks every node: stops allocs where the group may no
// longer run, updates outdated ones (destructive ones max_parallel at a
// time), and places the group where it is missing.
func (s *systemScheduler) reconcileGroup(stack *placementStack, tg *structs.TaskGroup, in *jobState, byNode map[[2]string][]*structs.Allocation, du *structs.DesiredUpdates) {
	g := stack.group(tg, nil)
	budget := systemBudget(tg)
	eligible := map[string]bool{}
	for _, n := range stack.nodes {
		eligible[n.ID] = true
	}
	for _, n := range in.nodes {
		allocs := byNode[[2]string{n.ID, tg.Name}]
		if !eligible[n.ID] {
			s.stopOnTainted(n, allocs, du)
			continue
		}
		s.reconcileNode(g, n, allocs, &budget, du)
	}
	s.stopOnMissingNodes(tg, in, du)
}

// stopOnTainted stops the group's allocs on a node it may not run on
// (down, ineligible, draining, or out of the job's datacenters or pool).
func (s *systemScheduler) stopOnTainted(n *structs.Node, allocs []*structs.Allocation, du *structs.DesiredUpdates) {
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		status := ""
		if n.Status == structs.NodeStatusDown {
			status = structs.AllocClientStatusLost
		}
		s.ctx.appendStop(a, allocNodeTainted, status)
		du.Stop++
	}
}

// stopOnMissingNodes stops allocs whose node is gone from the state.
func (s *systemScheduler) stopOnMissingNodes(tg *structs.TaskGroup, in *jobState, du *structs.DesiredUpdates) {
	for _, a := range in.allocs {
		if a.TaskGroup == tg.Name && in.nodeMap[a.NodeID] == nil && !a.TerminalStatus() {
			s.ctx.appendStop(a, allocLost, structs.AllocClientStatusLost)
			du.Stop++
		}
	}
}

// systemBudget is how many destructive updates a stagger step may do.
func systemBudget(tg *structs.TaskGroup) int {
	if tg.Update == nil || tg.Update.MaxParallel <= 0 {
		return math.MaxInt
	}
	return tg.Update.MaxParallel
}

func (s *systemScheduler) reconcileNode(g *groupStack, n *structs.Node, allocs []*structs.Allocation, budget *int, du *structs.DesiredUpdates) {
	live, done := s.splitLive(allocs)
	slices.SortFunc(live, func(a, b *structs.Allocation) int { return cmpInt(int64(a.CreateIndex), int64(b.CreateIndex)) })
	for _, extra := range live[min(1, len(live)):] {
		s.ctx.appendStop(extra, allocNotNeeded, "")
		du.Stop++
	}
	if len(live) > 0 {
		s.updateExisting(g, n, live[0], budget, du)
		return
	}
	if done {
		du.Ignore++ // sysbatch ran here to completion
		return
	}
	s.placeOn(g, n, nil, du)
}

// splitLive returns the node's live allocs of the group, and whether a
// sysbatch alloc of the current version already finished there.
func (s *systemScheduler) splitLive(allocs []*structs.Allocation) (live []*structs.Allocation, done bool) {
	for _, a := range allocs {
		switch {
		case !a.TerminalStatus():
			live = append(live, a)
		case s.sysbatch && a.ClientTerminalStatus() && a.Job != nil && a.Job.Version == s.job.Version:
			done = true
		}
	}
	return live, done
}

// updateExisting keeps, updates in place, replaces, or stops (when the
// node no longer satisfies the job) the group's alloc on a node.
func (s *systemScheduler) updateExisting(g *groupStack, n *structs.Node, a *structs.Allocation, budget *int, du *structs.DesiredUpdates) {
	// Only the class-level checks: distinct_* would count this very alloc.
	if !g.feas.classFeasible(n) {
		s.ctx.appendStop(a, allocNodeInfeasible, "")
		du.Stop++
		return
	}
	old := a.Job
	if old == nil || (old.Version == s.job.Version && old.JobModifyIndex == s.job.JobModifyIndex) {
		du.Ignore++
		return
	}
	oldTG := old.LookupTaskGroup(g.tg.Name)
	if oldTG != nil && !tasksUpdated(oldTG, g.tg) && !jobPlacementUpdated(old, s.job) {
		c := a.CopySkipJob()
		c.Job, c.EvalID = s.job, s.eval.ID
		s.ctx.appendAlloc(c)
		du.InPlaceUpdate++
		return
	}
	if *budget <= 0 {
		s.deferred = true
		du.Ignore++
		return
	}
	*budget--
	du.DestructiveUpdate++
	s.placeOn(g, n, a, du)
}

// placeOn places the group on the node, replacing prev when set. An
// infeasible node is skipped silently (system jobs run where they can);
// a feasible but full one is a failed placement.
func (s *systemScheduler) placeOn(g *groupStack, n *structs.Node, prev *structs.Allocation, du *structs.DesiredUpdates) {
	name := g.tg.Name
	if prev != nil {
		s.ctx.appendStop(prev, allocUpdating, "")
	}
	opt, metric, victims := g.selectOnOrPreempt(n)
	if opt == nil {
		if prev != nil {
			s.ctx.popStop(prev)
		}
		if metric.NodesFiltered > 0 {
			return
		}
		s.out.queued[name]++
		s.failedNode[n.ID] = true
		s.recordFailure(name, metric)
		return
	}
	if prev == nil {
		du.Place++
	}
	s.out.queued[name]++
	now := s.ctx.now.UnixNano()
	a := &structs.Allocation{
		ID: idFrom(s.ids), Namespace: s.job.Namespace, EvalID: s.eval.ID, Name: structs.AllocName(s.job.ID, name, 0),
		NodeID: n.ID, NodeName: n.Name, JobID: s.job.ID, Job: s.job, TaskGroup: name,
		AllocatedResources: g.resources(opt), Metrics: metric,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		CreateTime: now, ModifyTime: now,
	}
	if prev != nil {
		a.PreviousAllocation = prev.ID
	}
	s.ctx.appendPreemptions(a, victims)
	s.ctx.appendAlloc(a)
	s.placed[a.ID] = name
}

// recordFailure keeps the first failure's metrics per group and counts
// the rest as coalesced.
func (s *systemScheduler) recordFailure(group string, m *structs.AllocMetric) {
	if s.out.failed == nil {
		s.out.failed = map[string]*structs.AllocMetric{}
	}
	if prev, ok := s.out.failed[group]; ok {
		prev.CoalescedFailures++
		return
	}
	s.out.failed[group] = m
}
