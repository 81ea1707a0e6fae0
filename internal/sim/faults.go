package sim

import (
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// errWorkerDied is what a scheduler run killed by WorkerDies returns: the
// worker nacks the eval, and the broker redelivers it after its nack delay.
var errWorkerDied = errors.New("sim: worker died mid-eval")

// faults holds the injected failures the server's hooks consult.
type faults struct {
	mu           sync.Mutex
	rejectJobs   map[string]bool // plans of these jobs are rejected whole
	rejected     int             // plans rejected so far
	workerDeaths int             // scheduler runs still to kill
	killed       int
	slowApplies  int           // raft entries still to delay
	applyDelay   time.Duration // how long each is held
	delayed      int
}

func newFaults() *faults { return &faults{rejectJobs: map[string]bool{}} }

// rejectHook is the plan applier's RejectHook: every node of a plan for a
// rejected job, as if others had filled them since the snapshot.
func (f *faults) rejectHook(plan *structs.Plan) []string {
	if plan == nil || plan.Job == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.rejectJobs[plan.Job.ID] {
		return nil
	}
	f.rejected++
	var nodes []string
	for n := range plan.NodeAllocation {
		nodes = append(nodes, n)
	}
	for n := range plan.NodeUpdate {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	return nodes
}

// takeWorkerDeath reports whether this scheduler run must die.
func (f *faults) takeWorkerDeath() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.workerDeaths == 0 {
		return false
	}
	f.workerDeaths--
	f.killed++
	return true
}

// RejectPlans makes the plan applier reject every plan for the job (as
// if its nodes were filled between snapshot and apply) until AcceptPlans.
func (s *Sim) RejectPlans(jobID string) {
	s.faults.mu.Lock()
	s.faults.rejectJobs[jobID] = true
	s.faults.mu.Unlock()
}

// AcceptPlans stops rejecting the job's plans.
func (s *Sim) AcceptPlans(jobID string) {
	s.faults.mu.Lock()
	delete(s.faults.rejectJobs, jobID)
	s.faults.mu.Unlock()
}

// WorkerDies kills the next n scheduler runs: each errors out before
// planning, the worker nacks, and the broker redelivers the eval after the
// nack delay (up to its delivery limit, then the eval fails).
func (s *Sim) WorkerDies(n int) {
	s.faults.mu.Lock()
	s.faults.workerDeaths += n
	s.faults.mu.Unlock()
}

// LeaderChange steps the leader down and up again: the broker, blocked
// tracker and plan queue are flushed and rebuilt from the state store, as
// when another server takes over.
func (s *Sim) LeaderChange() error {
	s.srv.StepLeadership(false)
	s.srv.StepLeadership(true)
	return s.RunUntilIdle()
}

// schedulerFactories wraps the built-in schedulers: each run gets IDs
// derived from its eval (see idSource) and may be killed by WorkerDies.
func (s *Sim) schedulerFactories(now func() time.Time) map[string]scheduler.Factory {
	out := map[string]scheduler.Factory{}
	for _, typ := range []string{structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysBatch} {
		out[typ] = func(log *slog.Logger, st scheduler.State, p scheduler.Planner) scheduler.Scheduler {
			return &simScheduler{sim: s, typ: typ, now: now, log: log, st: st, p: p}
		}
	}
	return out
}

// simScheduler is one scheduler run under the simulator's control.
type simScheduler struct {
	sim *Sim
	typ string
	now func() time.Time
	log *slog.Logger
	st  scheduler.State
	p   scheduler.Planner
}

func (w *simScheduler) Process(eval *structs.Evaluation) error {
	w.sim.runs.Add(1)
	if w.sim.faults.takeWorkerDeath() {
		return errWorkerDied
	}
	factory := scheduler.Builtins(scheduler.Deps{Now: w.now, NewID: w.sim.ids.forEval(eval.ID)})[w.typ]
	return factory(w.log, w.st, w.p).Process(eval)
}

// applyHook is the server's RaftApplyHook: it holds the next slowApplies
// raft entries for applyDelay of real time before they are proposed, as a
// slow disk or a lagging network would. Workers then wait for their
// snapshot index and the plan applier for its commits; nothing may be
// lost or reordered.
func (f *faults) applyHook(structs.MessageType) {
	f.mu.Lock()
	if f.slowApplies == 0 {
		f.mu.Unlock()
		return
	}
	f.slowApplies--
	f.delayed++
	d := f.applyDelay
	f.mu.Unlock()
	time.Sleep(d)
}

// DelayRaftApply holds each of the next n raft entries for d of real time
// before it is proposed.
func (s *Sim) DelayRaftApply(n int, d time.Duration) {
	s.faults.mu.Lock()
	s.faults.slowApplies, s.faults.applyDelay = n, d
	s.faults.mu.Unlock()
}

// DelayedApplies reports how many raft entries were delayed so far.
func (s *Sim) DelayedApplies() int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.delayed
}
