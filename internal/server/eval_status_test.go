package server

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
)

// One test per transition of docs/design.md (T1-T18), driving the
// real broker, blocked tracker, workers and plan applier with a scripted
// scheduler.

func TestEvalStatus_EventToPending_JobRegisterAndDeregister(t *testing.T) {
	block := make(chan struct{})
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		<-block // hold the worker so the evals stay pending
		return complete(e, pl)
	})
	defer close(block)
	reg := p.eval(p.register(testJob("web")))
	if reg.Status != structs.EvalStatusPending || reg.TriggeredBy != structs.EvalTriggerJobRegister || reg.PreviousEval != "" {
		t.Fatalf("register eval = %+v", reg)
	}
	stop, err := JobDeregister.Call(context.Background(), p.srv, &structs.JobDeregisterArgs{JobID: "web"})
	if err != nil {
		t.Fatal(err)
	}
	dereg := p.eval(stop.EvalID)
	if dereg.Status != structs.EvalStatusPending || dereg.TriggeredBy != structs.EvalTriggerJobDeregister {
		t.Fatalf("deregister eval = %+v", dereg)
	}
}

func TestEvalStatus_PendingToScheduling_WorkerDequeues(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return complete(e, pl)
	})
	id := p.register(testJob("web"))
	done := p.waitStatus(id, structs.EvalStatusComplete)
	assertTimeline(t, done, structs.EvalStatusPending, structs.EvalQuasiStatusScheduling, structs.EvalStatusComplete)
	if done.Timeline[1].Worker == "" {
		t.Errorf("scheduling step does not name its worker: %+v", done.Timeline[1])
	}
}

func TestEvalStatus_PendingToDelayedToScheduling_WaitUntil(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return complete(e, pl)
	})
	p.register(testJob("web"))
	first := p.evalByTrigger("web", structs.EvalTriggerJobRegister)
	p.waitStatus(first.ID, structs.EvalStatusComplete)
	delayed := first.CreateFailedFollowUpEval("delayed-1", 30*time.Second, p.clk.Now())
	if err := p.srv.UpsertEvals([]*structs.Evaluation{delayed}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return p.srv.Stats().Broker.TotalWaiting == 1 })
	if got := p.eval("delayed-1").Status; got != structs.EvalStatusPending {
		t.Fatalf("delayed eval status %s before WaitUntil", got)
	}
	p.clk.Advance(31 * time.Second)
	done := p.waitStatus("delayed-1", structs.EvalStatusComplete)
	assertTimeline(t, done, structs.EvalQuasiStatusDelayed, structs.EvalQuasiStatusScheduling, structs.EvalStatusComplete)
}

func TestEvalStatus_SchedulingToComplete_PlanApplied(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		result, _, err := pl.SubmitPlan(placeOn(e, st, "n1", 500, 256))
		if err != nil || result.RefreshIndex != 0 {
			return errors.Join(err, errors.New("plan not fully applied"))
		}
		return complete(e, pl)
	})
	p.addNode("n1", 4000, 8192)
	id := p.register(testJob("web"))
	done := p.waitStatus(id, structs.EvalStatusComplete)
	allocs, _ := p.srv.State().AllocsByEval(nil, id)
	if len(allocs) != 1 || allocs[0].NodeID != "n1" {
		t.Fatalf("allocs = %+v", allocs)
	}
	assertTimeline(t, done, structs.EvalQuasiStatusScheduling, structs.EvalQuasiStatusApplying, structs.EvalQuasiStatusScheduling, structs.EvalStatusComplete)
}

func TestEvalStatus_SchedulingToBlocked_QueuedAllocs_SetsPointers(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return blockAndComplete(e, pl, "blocked-1")
	})
	id := p.register(testJob("web"))
	old := p.waitStatus(id, structs.EvalStatusComplete)
	blocked := p.eval("blocked-1")
	if old.BlockedEval != "blocked-1" || blocked.PreviousEval != id ||
		blocked.Status != structs.EvalStatusBlocked || blocked.TriggeredBy != structs.EvalTriggerQueuedAllocs {
		t.Fatalf("old %+v\nblocked %+v", old, blocked)
	}
	waitFor(t, func() bool { return p.srv.Stats().Blocked.TotalBlocked == 1 })
}

// blockAndComplete creates a queued-allocs blocked eval for e (new.
// PreviousEval = e.ID, e.BlockedEval = new.ID) and completes e.
func blockAndComplete(e *structs.Evaluation, pl scheduler.Planner, blockedID string) error {
	blocked := e.CreateBlockedEval(blockedID, nil, false, "", nil, time.Unix(0, 0))
	if err := pl.CreateEval(blocked); err != nil {
		return err
	}
	done := e.Copy()
	done.Status, done.BlockedEval = structs.EvalStatusComplete, blocked.ID
	return pl.UpdateEval(done)
}

func TestEvalStatus_SchedulingToBlocked_MaxPlanAttempts_SetsPointers(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		for attempt := 0; attempt < scheduler.MaxServiceScheduleAttempts; attempt++ {
			result, newState, err := pl.SubmitPlan(placeOn(e, st, "full", 3000, 256))
			if err != nil {
				return err
			}
			if result.RefreshIndex == 0 {
				return complete(e, pl)
			}
			st = newState
		}
		blocked := e.CreateBlockedEval("max-attempts-1", nil, false, "", nil, time.Unix(0, 0))
		blocked.TriggeredBy = structs.EvalTriggerMaxPlans
		if err := pl.CreateEval(blocked); err != nil {
			return err
		}
		failed := e.Copy()
		failed.Status, failed.StatusDescription, failed.BlockedEval = structs.EvalStatusFailed, "maximum attempts reached (5)", blocked.ID
		return pl.UpdateEval(failed)
	})
	p.addNode("full", 2000, 8192) // every plan over-commits cpu and is rejected
	id := p.register(testJob("web"))
	old := p.waitStatus(id, structs.EvalStatusFailed)
	blocked := p.eval("max-attempts-1")
	if old.BlockedEval != blocked.ID || blocked.PreviousEval != id ||
		blocked.Status != structs.EvalStatusBlocked || blocked.TriggeredBy != structs.EvalTriggerMaxPlans {
		t.Fatalf("old %+v\nblocked %+v", old, blocked)
	}
	if n := countSteps(old, structs.EvalQuasiStatusApplying); n != scheduler.MaxServiceScheduleAttempts {
		t.Errorf("timeline shows %d applying steps, want %d", n, scheduler.MaxServiceScheduleAttempts)
	}
}

func TestEvalStatus_ApplyingToScheduling_PlanRejectedRetriedOnRefreshedState(t *testing.T) {
	var refreshed []uint64
	p := newPipeline(t, 1, nil)
	p.setScript(func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		result, newState, err := pl.SubmitPlan(placeOn(e, st, "small", 3000, 256))
		if err != nil {
			return err
		}
		if result.RefreshIndex == 0 || newState == nil {
			return errors.New("over-committing plan was not rejected")
		}
		refreshed = append(refreshed, result.RefreshIndex, newState.LatestIndex())
		result, _, err = pl.SubmitPlan(placeOn(e, newState, "big", 3000, 256))
		if err != nil || result.RefreshIndex != 0 {
			return errors.Join(err, errors.New("retry rejected"))
		}
		return complete(e, pl)
	})
	p.addNode("small", 1000, 8192)
	p.addNode("big", 8000, 8192)
	id := p.register(testJob("web"))
	p.waitStatus(id, structs.EvalStatusComplete)
	if len(refreshed) != 2 || refreshed[1] < refreshed[0] {
		t.Fatalf("refresh index %v: the retry snapshot must be at least the refresh index", refreshed)
	}
}

func TestEvalStatus_SchedulingToBlocked_ReusesBlockedEval(t *testing.T) {
	var reblocked bool
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.Status == structs.EvalStatusBlocked {
			reblocked = true
			return pl.ReblockEval(e) // still does not fit: reuse the same blocked eval
		}
		return blockAndComplete(e, pl, "blocked-1")
	})
	id := p.register(testJob("web"))
	p.waitStatus(id, structs.EvalStatusComplete)
	waitFor(t, func() bool { return p.srv.Stats().Blocked.TotalBlocked == 1 })
	p.addNode("n1", 4000, 8192) // unblocks class-a... and the scheduler reblocks
	waitFor(t, func() bool { return reblockedSeen(p, "blocked-1") })
	if !reblocked {
		t.Fatal("scheduler never saw the blocked eval")
	}
	evals := p.evalsOf("web")
	if len(evals) != 2 {
		t.Fatalf("reblock created a new eval: %d evals", len(evals))
	}
	waitFor(t, func() bool { return p.srv.Stats().Blocked.TotalBlocked == 1 })
}

func reblockedSeen(p *pipeline, id string) bool {
	return countSteps(&structs.Evaluation{Timeline: p.srv.timeline.Entries(id)}, structs.EvalQuasiStatusScheduling) > 0 &&
		p.eval(id).Status == structs.EvalStatusBlocked && p.srv.Stats().Broker.TotalUnacked == 0
}

func TestEvalStatus_BlockedToScheduling_UnblockedByNodeRegister(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		nodes, _ := st.Nodes(nil)
		if len(nodes) == 0 {
			return blockAndComplete(e, pl, "blocked-1")
		}
		if _, _, err := pl.SubmitPlan(placeOn(e, st, nodes[0].ID, 500, 256)); err != nil {
			return err
		}
		return complete(e, pl)
	})
	id := p.register(testJob("web"))
	p.waitStatus(id, structs.EvalStatusComplete)
	if p.eval("blocked-1").Status != structs.EvalStatusBlocked {
		t.Fatal("no blocked eval")
	}
	p.addNode("n1", 4000, 8192)
	done := p.waitStatus("blocked-1", structs.EvalStatusComplete)
	assertTimeline(t, done, structs.EvalStatusBlocked, structs.EvalQuasiStatusScheduling, structs.EvalStatusComplete)
	if allocs, _ := p.srv.State().AllocsByEval(nil, "blocked-1"); len(allocs) != 1 {
		t.Fatalf("unblocked eval placed %d allocs", len(allocs))
	}
}

func TestEvalStatus_SchedulingToFailed_WrongEvalType(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return complete(e, pl)
	}, func(c *Config) {
		// Workers take "quantum" evals, but no scheduler exists for them.
		c.EnabledSchedulers = []string{structs.JobTypeService, "quantum"}
	})
	bad := &structs.Evaluation{ID: "sys-1", Namespace: "default", Priority: 50, Type: "quantum",
		TriggeredBy: structs.EvalTriggerJobRegister, JobID: "web", Status: structs.EvalStatusPending}
	if err := p.srv.UpsertEvals([]*structs.Evaluation{bad}); err != nil {
		t.Fatal(err)
	}
	failed := p.waitStatus("sys-1", structs.EvalStatusFailed)
	if failed.StatusDescription == "" || failed.NextEval != "" {
		t.Fatalf("failed = %+v (wrong-type failures get no follow-up)", failed)
	}
}

func TestEvalStatus_PendingToCanceled_SupersededByNewerEval(t *testing.T) {
	release := make(chan struct{})
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.TriggeredBy == structs.EvalTriggerJobRegister {
			<-release // hold the first eval in flight while others queue behind it
		}
		return complete(e, pl)
	})
	first := p.register(testJob("web"))
	waitFor(t, func() bool { return p.srv.Stats().Broker.TotalUnacked == 1 })
	var waiting []string
	for i := 0; i < 3; i++ {
		j := testJob("web")
		j.Meta = map[string]string{"v": string(rune('a' + i))}
		stop, err := JobDeregister.Call(context.Background(), p.srv, &structs.JobDeregisterArgs{JobID: "web"})
		if err != nil {
			t.Fatal(err)
		}
		waiting = append(waiting, stop.EvalID)
		p.register(j)
	}
	close(release)
	p.waitStatus(first, structs.EvalStatusComplete)
	// All but the newest waiting eval are superseded and canceled in a batch.
	for _, id := range waiting {
		p.waitStatus(id, structs.EvalStatusCanceled)
	}
	var completed int
	waitFor(t, func() bool {
		completed = 0
		for _, e := range p.evalsOf("web") {
			if e.Status == structs.EvalStatusComplete {
				completed++
			}
		}
		return completed == 2
	})
}

func TestEvalStatus_SchedulingToPending_RollingUpdate_SetsPointers(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.TriggeredBy == structs.EvalTriggerRollingUpdate {
			return complete(e, pl)
		}
		next := e.NextRollingEval("rolling-1", 10*time.Second, time.Unix(1_700_000_000, 0))
		if err := pl.CreateEval(next); err != nil {
			return err
		}
		done := e.Copy()
		done.Status, done.NextEval = structs.EvalStatusComplete, next.ID
		return pl.UpdateEval(done)
	})
	id := p.register(testJob("web"))
	old := p.waitStatus(id, structs.EvalStatusComplete)
	next := p.eval("rolling-1")
	if old.NextEval != "rolling-1" || next.PreviousEval != id || next.TriggeredBy != structs.EvalTriggerRollingUpdate || next.Status != structs.EvalStatusPending {
		t.Fatalf("old %+v\nnext %+v", old, next)
	}
	p.clk.Advance(11 * time.Second)
	p.waitStatus("rolling-1", structs.EvalStatusComplete)
}

func TestEvalStatus_PendingToFailed_DeliveryLimit_ThenFailedFollowUp(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.TriggeredBy == structs.EvalTriggerFailedFollowUp {
			return complete(e, pl)
		}
		return errors.New("scheduler crashed") // nack
	})
	id := p.register(testJob("web"))
	// Three deliveries, each nacked; the nack delays are 1s then 20s.
	waitFor(t, func() bool { return p.srv.Stats().Broker.TotalWaiting == 1 })
	p.clk.Advance(2 * time.Second)
	waitFor(t, func() bool { return p.srv.Stats().Broker.TotalWaiting == 1 && p.calls.Load() == 2 })
	p.clk.Advance(21 * time.Second)
	failed := p.waitStatus(id, structs.EvalStatusFailed)
	if failed.StatusDescription != leader.DescDeliveryLimit || failed.NextEval == "" {
		t.Fatalf("failed = %+v", failed)
	}
	follow := p.eval(failed.NextEval)
	if follow.TriggeredBy != structs.EvalTriggerFailedFollowUp || follow.PreviousEval != id ||
		follow.Status != structs.EvalStatusPending || !follow.WaitUntil.After(p.clk.Now()) {
		t.Fatalf("follow-up = %+v", follow)
	}
	p.clk.Advance(2 * time.Minute)
	p.waitStatus(follow.ID, structs.EvalStatusComplete)
}

func TestEvalStatus_FailedToPending_FailedFollowUp_SetsPointers(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.TriggeredBy == structs.EvalTriggerFailedFollowUp {
			return complete(e, pl)
		}
		failed := e.Copy()
		failed.Status, failed.StatusDescription = structs.EvalStatusFailed, "maximum attempts reached (5)"
		return pl.UpdateEval(failed)
	})
	id := p.register(testJob("web"))
	var old *structs.Evaluation
	waitFor(t, func() bool { old = p.eval(id); return old.NextEval != "" })
	follow := p.eval(old.NextEval)
	if old.Status != structs.EvalStatusFailed || follow.PreviousEval != id ||
		follow.TriggeredBy != structs.EvalTriggerFailedFollowUp || follow.Wait < time.Minute {
		t.Fatalf("old %+v\nfollow-up %+v", old, follow)
	}
	p.clk.Advance(2 * time.Minute)
	p.waitStatus(follow.ID, structs.EvalStatusComplete)
}

func TestEvalStatus_BlockedToCanceled_DuplicateReaped(t *testing.T) {
	n := 0
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		n++
		return blockAndComplete(e, pl, []string{"blocked-1", "blocked-2"}[n-1])
	})
	first := p.register(testJob("web"))
	p.waitStatus(first, structs.EvalStatusComplete)
	j := testJob("web")
	j.Meta = map[string]string{"v": "2"}
	second := p.register(j)
	p.waitStatus(second, structs.EvalStatusComplete)
	dup := p.waitStatus("blocked-1", structs.EvalStatusCanceled)
	if dup.StatusDescription != leader.DescDuplicateBlocked {
		t.Errorf("duplicate canceled with %q", dup.StatusDescription)
	}
	if p.eval("blocked-2").Status != structs.EvalStatusBlocked {
		t.Errorf("newest blocked eval not kept")
	}
	waitFor(t, func() bool { return p.srv.Stats().Blocked.TotalBlocked == 1 })
}

func assertTimeline(t *testing.T, e *structs.Evaluation, want ...string) {
	t.Helper()
	var got []string
	for _, step := range e.Timeline {
		got = append(got, step.Status)
	}
	i := 0
	for _, s := range got {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	if i != len(want) {
		t.Errorf("timeline %v does not contain %v in order", got, want)
	}
}

func countSteps(e *structs.Evaluation, status string) int {
	n := 0
	for _, s := range e.Timeline {
		if s.Status == status {
			n++
		}
	}
	return n
}

func TestEvalStatus_TerminalToDeleted_GarbageCollected(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		switch e.JobID {
		case "fails":
			failed := e.Copy()
			failed.Status = structs.EvalStatusFailed
			failed.StatusDescription = "wrong eval type: test"
			failed.FailureKind = structs.EvalFailureWrongType
			return pl.UpdateEval(failed)
		}
		return complete(e, pl)
	})
	completed := p.register(testJob("done"))
	failed := p.register(testJob("fails"))
	p.waitStatus(completed, structs.EvalStatusComplete)
	p.waitStatus(failed, structs.EvalStatusFailed)
	canceled := &structs.Evaluation{ID: "canceled-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerJobRegister, JobID: "done", Status: structs.EvalStatusCanceled,
		ModifyTime: p.clk.Now().UnixNano()}
	if err := p.srv.UpsertEvals([]*structs.Evaluation{canceled}); err != nil {
		t.Fatal(err)
	}
	// Young evals survive a GC pass.
	if err := p.srv.leader.CreateCoreEvals(leader.CoreJobEvalGC); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return countCoreEvals(p, structs.EvalStatusComplete) == 1 })
	for _, id := range []string{completed, failed, "canceled-1"} {
		if p.eval(id) == nil {
			t.Fatalf("eval %s collected before the threshold", id)
		}
	}
	p.clk.Advance(2 * time.Hour)
	if err := p.srv.leader.CreateCoreEvals(leader.CoreJobEvalGC); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		return p.eval(completed) == nil && p.eval(failed) == nil && p.eval("canceled-1") == nil
	})
	steps := p.srv.timeline.Entries(completed)
	if steps[len(steps)-1].Status != structs.EvalQuasiStatusDeleted {
		t.Errorf("timeline does not end in deleted: %+v", steps[len(steps)-1])
	}
}

func countCoreEvals(p *pipeline, status string) int {
	n := 0
	for _, e := range p.evalsOf(leader.CoreJobEvalGC) {
		if e.Status == status && e.TriggeredBy == structs.EvalTriggerScheduled && e.Type == structs.JobTypeCore {
			n++
		}
	}
	return n
}

// An ack that does not wake the cancelable reaper (the undeliverable-eval
// reaper acks the broker directly) still gets the evals it superseded
// canceled, by the reaper's poll every 5 s of the server's clock, and not
// before. The second run is in a synctest bubble, where synctest.Wait
// returns only once the reaper (like every other goroutine) is idle, so a
// poll that fires early is always seen. The first run, outside, also
// makes the process-wide raft metrics the server reports: a prometheus
// summary first made inside a bubble keeps the bubble's clock and stalls
// every later server that reports to it.
func TestEvalStatus_SupersededEvalsCanceledByThePollWithoutAWake(t *testing.T) {
	t.Run("real time", func(t *testing.T) { supersededCanceledByThePoll(t, func() {}) })
	t.Run("bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { supersededCanceledByThePoll(t, synctest.Wait) })
	})
}

// supersededCanceledByThePoll is the test above; settle waits until the
// server is idle, where it can.
func supersededCanceledByThePoll(t *testing.T, settle func()) {
	p := heldPipeline(t)
	first := p.register(testJob("web"))
	superseded := p.register(testJob("web"))
	newest := p.register(testJob("web"))
	eval, token, err := p.srv.broker.Dequeue(context.Background(), []string{structs.JobTypeService})
	if err != nil || eval == nil || eval.ID != first {
		t.Fatalf("dequeued %v (%v), want the first eval %s", eval, err, first)
	}
	if err := p.srv.broker.Ack(eval.ID, token); err != nil {
		t.Fatal(err)
	}
	if got := p.srv.broker.Stats().TotalCancelable; got != 1 {
		t.Fatalf("%d cancelable evals after the ack, want 1", got)
	}
	p.clk.Advance(5*time.Second - time.Millisecond)
	settle()
	if got := p.eval(superseded).Status; got != structs.EvalStatusPending {
		t.Fatalf("superseded eval is %s before 5 s passed, want pending", got)
	}
	p.clk.Advance(time.Millisecond)
	settle()
	canceled := p.waitStatus(superseded, structs.EvalStatusCanceled)
	if canceled.StatusDescription != leader.DescSuperseded {
		t.Fatalf("canceled as %q, want %q", canceled.StatusDescription, leader.DescSuperseded)
	}
	if got := p.eval(newest).Status; got != structs.EvalStatusPending {
		t.Fatalf("the newest eval is %s, want pending (it is still to be scheduled)", got)
	}
}
