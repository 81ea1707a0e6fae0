package scheduler

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// genericScheduler is the service and batch scheduler: reconcile the job
// with its allocs, place what is missing, submit the plan, retry on
// rejection, and record the outcome on the eval.
type genericScheduler struct {
	log     *slog.Logger
	state   State
	planner Planner
	batch   bool
	now     func() time.Time
	ids     func() string  // nil: newID
	memo    *candidateMemo // shared by the schedulers of one Builtins; nil: none
	// stopwatch times placements (Deps.Stopwatch); nil: not timed.
	stopwatch func() func() time.Duration

	eval       *structs.Evaluation
	job        *structs.Job
	ctx        *evalContext
	plan       *structs.Plan
	planResult *structs.PlanResult
	out        outcome
	canceled   string
	submitted  bool                                // a plan was submitted in some attempt
	finished   bool                                // the last plan's entry wrote the eval's final status
	placed     map[string]string                   // new alloc ID -> task group
	followUps  map[followUpKey]*structs.Evaluation // kept across attempts
	created    map[string]bool                     // follow-up evals already written
	nodes      []*structs.Node
}

// newGenericScheduler returns the scheduler for service jobs, or with
// batch for batch jobs: fewer plan attempts, a smaller sample, and
// completed allocs are never replaced.
func newGenericScheduler(log *slog.Logger, state State, planner Planner, batch bool, now func() time.Time) *genericScheduler {
	if log == nil {
		log = slog.Default()
	}
	return &genericScheduler{
		log: log, state: state, planner: planner, batch: batch, now: now,
		followUps: map[followUpKey]*structs.Evaluation{}, created: map[string]bool{},
	}
}

// Process handles one evaluation.
func (s *genericScheduler) Process(eval *structs.Evaluation) error {
	s.eval = eval.Copy()
	s.out = outcome{planner: s.planner, eval: s.eval, ids: s.ids}
	if !handledTriggers[eval.TriggeredBy] {
		return s.out.finish(structs.EvalStatusFailed, fmt.Sprintf(evalDescUnhandledTrigger, eval.TriggeredBy))
	}
	limit := MaxServiceScheduleAttempts
	if s.batch {
		limit = MaxBatchScheduleAttempts
	}
	err := retryMax(limit, s.attempt, func() bool { return progressMade(s.planResult) })
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
		return err // the worker nacks; the eval is retried
	case s.canceled != "":
		return s.out.finish(structs.EvalStatusCanceled, s.canceled)
	case s.eval.Status == structs.EvalStatusBlocked && len(s.out.failed) > 0:
		return s.out.reblock(s.ctx)
	}
	return s.out.finishProcessed(s.submitted, len(s.created) > 0, s.job)
}

// attempt computes a plan against the current state and submits it; done
// is false when the plan was (partly) rejected and must be recomputed.
func (s *genericScheduler) attempt() (bool, error) {
	res, err := s.computePlan()
	if err != nil {
		return false, err
	}
	if evalSuperseded(s.eval, s.job) && s.plan.IsNoOp() {
		s.canceled = fmt.Sprintf(evalDescSupersededByVersion, s.job.Version)
		s.out.failed = nil
		return true, nil
	}
	delayInstead := hasRescheduleFollowUp(res.followUps) && s.eval.WaitUntil.IsZero()
	if s.eval.Status != structs.EvalStatusBlocked && len(s.out.failed) > 0 && s.out.blocked == nil && !delayInstead {
		if err := s.out.createBlocked(false, s.ctx, s.now(), ""); err != nil {
			return false, err
		}
	}
	if err := s.writeFollowUps(res.followUps); err != nil {
		return false, err
	}
	if s.plan.IsNoOp() && !s.eval.AnnotatePlan {
		return true, nil
	}
	return s.submit()
}

func (s *genericScheduler) submit() (bool, error) {
	s.submitted = true
	s.out.attachFinal(s.plan, s.placed)
	result, newState, err := s.planner.SubmitPlan(s.plan)
	s.planResult = result
	if err != nil {
		return false, err
	}
	if result != nil {
		s.adjustQueued(result)
		s.finished = result.EvalFinished
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

// adjustQueued counts the committed placements off the queued allocs.
func (s *genericScheduler) adjustQueued(result *structs.PlanResult) {
	for _, allocs := range result.NodeAllocation {
		for _, a := range allocs {
			if tg, ok := s.placed[a.ID]; ok {
				s.out.queued[tg]--
			}
		}
	}
}

// hasRescheduleFollowUp reports whether a delayed alloc-failure eval will
// retry the placements anyway (a max-disconnect-timeout one does not).
func hasRescheduleFollowUp(evals []*structs.Evaluation) bool {
	for _, e := range evals {
		if e.TriggeredBy == structs.EvalTriggerRetryFailedAlloc {
			return true
		}
	}
	return false
}

// writeFollowUps writes the delayed reschedule evals not yet written by an
// earlier attempt.
func (s *genericScheduler) writeFollowUps(evals []*structs.Evaluation) error {
	for _, e := range evals {
		if s.created[e.ID] {
			continue
		}
		if err := s.planner.CreateEval(e); err != nil {
			return err
		}
		s.created[e.ID] = true
	}
	return nil
}

// computePlan reads the state, reconciles and places.
func (s *genericScheduler) computePlan() (*reconcileResults, error) {
	in, err := readJobState(s.state, s.eval)
	if err != nil {
		return nil, err
	}
	s.job, s.nodes = in.job, in.nodes
	now := s.now()
	s.plan = &structs.Plan{EvalID: s.eval.ID, Priority: s.eval.Priority, Job: in.job, SnapshotIndex: s.state.LatestIndex()}
	if in.job != nil {
		s.plan.AllAtOnce = in.job.AllAtOnce
	}
	s.ctx = newEvalContext(s.state, s.eval, in.job, s.plan, in.cfg, now)
	s.ctx.stopwatch = s.stopwatch
	s.ctx.nodes, s.ctx.jobAllocs = in.nodeMap, in.allocs
	s.ctx.setNodes(in.nodes, s.memo)
	s.out.failed, s.out.queued, s.placed = nil, map[string]int{}, map[string]string{}

	r := newReconciler(in.job, s.batch, in.allocs, in.nodeMap, s.eval, in.latest, now)
	r.followUpID = s.followUpID
	r.ids = s.ids
	r.followUpPending = s.followUpPending
	res := r.compute()
	s.applyReconcile(res)
	stopOlder(s.ctx, in.older, res.desired)
	if err := s.placeAll(res); err != nil {
		return nil, err
	}
	return res, nil
}

// followUpPending reports whether an alloc's follow-up eval still exists
// and has yet to run: then the alloc waits for it rather than getting
// another one from every eval that passes by.
func (s *genericScheduler) followUpPending(evalID string) bool {
	e, err := s.state.EvalByID(nil, evalID)
	return err == nil && e != nil && !e.TerminalStatus()
}

// followUpKey identifies a follow-up eval across attempts.
type followUpKey struct {
	trigger string
	at      int64 // WaitUntil, unix nanoseconds
}

// followUpID reuses the follow-up eval of an earlier attempt for the same
// trigger and time, so a retried plan does not write duplicate follow-ups.
func (s *genericScheduler) followUpID(e *structs.Evaluation) *structs.Evaluation {
	key := followUpKey{e.TriggeredBy, e.WaitUntil.UnixNano()}
	if prev, ok := s.followUps[key]; ok {
		return prev
	}
	s.followUps[key] = e
	return e
}

// applyReconcile puts the reconciler's stops, in-place updates and
// deployment changes into the plan.
func (s *genericScheduler) applyReconcile(res *reconcileResults) {
	for _, st := range res.stop {
		s.ctx.appendStop(st.alloc, st.desc, st.clientStatus)
	}
	for _, a := range res.inplace {
		if d := res.active; d != nil && d.TaskGroups[a.TaskGroup] != nil && a.DeploymentID != d.ID {
			// Moved into the new version's deployment: the health it
			// reported belongs to the old one, so it is cleared (as in
			// Nomad) and the client reports it again after
			// min_healthy_time; kept, the new deployment would never
			// count it.
			a.DeploymentID, a.DeploymentStatus = d.ID, nil
		}
		s.ctx.appendAlloc(a)
	}
	for _, a := range res.attrUpdate {
		s.ctx.appendAlloc(a)
	}
	s.plan.Deployment = res.deployment
	s.plan.DeploymentUpdates = res.deploymentUpdates
	s.plan.Annotations = &structs.PlanAnnotations{DesiredTGUpdates: res.desired}
	if res.active != nil {
		s.out.deployment = res.active.ID
	}
	if s.job != nil && !s.job.Stop {
		for _, tg := range s.job.TaskGroups {
			s.out.queued[tg.Name] = 0
		}
	}
}

// placeAll places the reconciler's requests in order. Once a group fails
// to place, its remaining placements would fail the same way, so they are
// only counted (CoalescedFailures).
func (s *genericScheduler) placeAll(res *reconcileResults) error {
	if len(res.place) == 0 {
		return nil
	}
	stack := newPlacementStack(s.ctx, s.job, s.batch, s.nodes, s.memo)
	defer stack.release()
	s.ctx.expectRanks(len(res.place) * samplingLimit(len(stack.nodes), s.batch, false))
	s.placed = make(map[string]string, len(res.place))
	for _, req := range res.place {
		name := req.tg.Name
		s.out.queued[name]++
		if m, failed := s.out.failed[name]; failed {
			m.CoalescedFailures++
			continue
		}
		g := stack.group(req.tg, res.kept[name])
		if err := s.placeOne(g, req, res.active); err != nil {
			return err
		}
	}
	return nil
}

func (s *genericScheduler) placeOne(g *groupStack, req placeRequest, active *structs.Deployment) error {
	prev := req.previous
	if prev != nil && req.stopPrevious {
		s.ctx.appendStop(prev, req.stopDesc, "")
	}
	var penalty map[string]bool
	if req.reschedule {
		penalty = penaltyNodes(prev)
	}
	opt, metric, victims := g.selectSticky(prev)
	if opt == nil {
		opt, metric, victims = g.selectOrPreempt(penalty)
	}
	if opt == nil {
		if prev != nil && req.stopPrevious {
			s.ctx.popStop(prev)
		}
		if s.out.failed == nil {
			s.out.failed = map[string]*structs.AllocMetric{}
		}
		s.out.failed[req.tg.Name] = metric
		return nil
	}
	a := s.newAlloc(g, opt, metric, req, active)
	s.ctx.appendPreemptions(a, victims)
	s.ctx.appendAllocAt(a, opt.pos)
	g.placed(opt.node, opt.pos)
	s.placed[a.ID] = req.tg.Name
	if req.canary && active != nil {
		s.recordCanary(active, req.tg.Name, a.ID)
	}
	return nil
}

// recordCanary adds a placed canary to the plan's deployment.
func (s *genericScheduler) recordCanary(active *structs.Deployment, group, allocID string) {
	if s.plan.Deployment == nil {
		s.plan.Deployment = active.Copy()
	}
	if st := s.plan.Deployment.TaskGroups[group]; st != nil {
		st.PlacedCanaries = append(st.PlacedCanaries, allocID)
	}
}

func (s *genericScheduler) newAlloc(g *groupStack, opt *option, metric *structs.AllocMetric, req placeRequest, active *structs.Deployment) *structs.Allocation {
	now := s.ctx.now.UnixNano()
	a := &structs.Allocation{
		ID: idFrom(s.ids), Namespace: s.job.Namespace, EvalID: s.eval.ID, Name: req.name,
		NodeID: opt.node.ID, NodeName: opt.node.Name, JobID: s.job.ID, Job: s.job,
		TaskGroup: req.tg.Name, AllocatedResources: g.resources(opt), Metrics: metric,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		CreateTime: now, ModifyTime: now,
	}
	if prev := req.previous; prev != nil {
		a.PreviousAllocation = prev.ID
		if req.reschedule {
			a.RescheduleTracker = nextTracker(prev, s.ctx.now, req.delay)
		}
	}
	if active != nil && active.TaskGroups[req.tg.Name] != nil {
		a.DeploymentID = active.ID
		if req.canary {
			a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
		}
	}
	return a
}
