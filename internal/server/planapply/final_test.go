package planapply

import (
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// finalPlan is a plan of eval-1 placing allocs that carries the eval's
// final status, its timeline ending in that status.
func finalPlan(h *harness, job *structs.Job, allocs ...*structs.Allocation) *structs.Plan {
	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, allocs...)
	plan.FinalEval = &structs.Evaluation{ID: "eval-1", Namespace: job.Namespace, JobID: job.ID, Type: job.Type,
		Status: structs.EvalStatusComplete, ModifyTime: 1,
		Timeline: []*structs.EvalTimelineEntry{{Status: structs.EvalQuasiStatusApplying, Time: 1}, {Status: structs.EvalStatusComplete, Time: 2}}}
	return plan
}

// acks records the applier's acks.
func acks(h *harness) *[]string {
	var got []string
	h.reconfigure(func(c *Config) {
		c.AckEval = func(evalID, token string) error {
			got = append(got, evalID+"/"+token)
			return nil
		}
		c.NackEval = func(evalID, token string) error {
			got = append(got, "nack "+evalID+"/"+token)
			return nil
		}
	})
	return &got
}

func TestFinalEval_WholePlanWritesTheStatusAndAcks(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	acked := acks(h)
	now := h.clock.Now().UnixNano()

	res, err := h.submit(finalPlan(h, job, mockAlloc("p1", job, "n1", 100, 100, 100)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.EvalFinished || res.EvalFinishTime != now {
		t.Fatalf("result finished=%v at %d, want finished at the entry's time %d", res.EvalFinished, res.EvalFinishTime, now)
	}
	if len(*acked) != 1 || (*acked)[0] != "eval-1/token-eval-1" {
		t.Fatalf("acks %v, want eval-1 under its plan's token", *acked)
	}
	e, err := h.store.EvalByID(nil, "eval-1")
	h.must(err)
	if e == nil || e.Status != structs.EvalStatusComplete || e.ModifyIndex != res.AllocIndex || e.ModifyTime != now {
		t.Fatalf("stored eval %+v, want complete at the plan's index %d and time %d", e, res.AllocIndex, now)
	}
	if last := e.Timeline[len(e.Timeline)-1]; last.Status != structs.EvalStatusComplete || last.Time != now {
		t.Fatalf("timeline ends %+v, want the final status at the entry's time", last)
	}
}

func TestFinalEval_PartlyRejectedPlanLeavesTheEvalToItsWorker(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1", "n2")
	h.upsertAllocs(mockAlloc("big", job, "n2", 3900, 100, 100))
	acked := acks(h)

	res, err := h.submit(finalPlan(h, job, mockAlloc("p1", job, "n1", 100, 100, 100), mockAlloc("p2", job, "n2", 500, 100, 100)))
	if err != nil {
		t.Fatal(err)
	}
	if res.EvalFinished || len(*acked) != 0 || h.raft.reqs[0].FinalEval != nil {
		t.Fatalf("finished=%v acks=%v entry eval=%v; a partly rejected plan must not finish its eval",
			res.EvalFinished, *acked, h.raft.reqs[0].FinalEval)
	}
	if e, _ := h.store.EvalByID(nil, "eval-1"); e != nil {
		t.Fatalf("eval written: %+v", e)
	}
}

func TestFinalEval_FailedCommitAcksNothing(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	acked := acks(h)
	h.raft.fail = errRaft

	if _, err := h.submit(finalPlan(h, job, mockAlloc("p1", job, "n1", 100, 100, 100))); !errors.Is(err, errRaft) {
		t.Fatalf("err %v, want %v", err, errRaft)
	}
	if len(*acked) != 0 {
		t.Fatalf("acked %v after a failed commit", *acked)
	}
}

// Without an acker (no broker to ack in) plans never carry a status.
func TestFinalEval_NoAckerWritesNoStatus(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	res, err := h.submit(finalPlan(h, job, mockAlloc("p1", job, "n1", 100, 100, 100)))
	if err != nil {
		t.Fatal(err)
	}
	if res.EvalFinished || h.raft.reqs[0].FinalEval != nil {
		t.Fatal("the plan finished its eval with no one to ack it")
	}
}

// The pipeline answers a plan that finishes its eval once its entry is
// proposed, without waiting for the commit: the worker goes on to its
// next eval. The eval is acked only when the entry commits.
func TestFinalEval_PipelineAnswersBeforeTheCommit(t *testing.T) {
	h, g, job := pipelineFixture(t)
	acked := acks(h)
	pending := h.enqueue(finalPlan(h, job, mockAlloc("p1", job, "n2", 100, 100, 100)))

	evaluateEach(h, pending)
	if g.proposed() != 1 || !answered(pending) {
		t.Fatalf("proposed %d, answered %v: want the entry in raft and the worker answered", g.proposed(), answered(pending))
	}
	res, err := pending.Wait()
	if err != nil || !res.EvalFinished || res.EvalFinishTime == 0 {
		t.Fatalf("early answer %+v, %v: want the eval finished by the plan", res, err)
	}
	if len(*acked) != 0 {
		t.Fatalf("acked %v before the entry committed", *acked)
	}
	g.commitNext(t)
	waitFor(t, func() bool { h.app.mu.Lock(); defer h.app.mu.Unlock(); return len(h.app.inflight) == 0 })
	if len(*acked) != 1 || (*acked)[0] != "eval-1/token-eval-1" {
		t.Fatalf("after the commit: %v, want eval-1 acked", *acked)
	}
	if e, _ := h.store.EvalByID(nil, "eval-1"); e == nil || e.Status != structs.EvalStatusComplete {
		t.Fatalf("stored eval %+v, want complete", e)
	}
}

// If the entry of a plan answered before its commit fails, the applier
// nacks the eval, which is still pending in the state: another worker
// schedules it again. Nothing is acked.
func TestFinalEval_FailedEntryAfterTheAnswerNacksTheEval(t *testing.T) {
	h, g, job := pipelineFixture(t)
	acked := acks(h)
	pending := h.enqueue(finalPlan(h, job, mockAlloc("p1", job, "n2", 100, 100, 100)))
	evaluateEach(h, pending)
	if !answered(pending) {
		t.Fatal("a finishing plan was not answered when proposed")
	}
	g.failNext(t, errors.New("leadership lost"))
	waitFor(t, func() bool { h.app.mu.Lock(); defer h.app.mu.Unlock(); return len(h.app.inflight) == 0 })
	if len(*acked) != 1 || (*acked)[0] != "nack eval-1/token-eval-1" {
		t.Fatalf("after the failed entry: %v, want eval-1 nacked", *acked)
	}
	if h.alloc("p1") != nil {
		t.Fatal("the failed entry's alloc was committed")
	}
}

// A plan that does not finish its eval waits for its entry's commit: its
// worker goes on with the eval and needs the committed result.
func TestFinalEval_PlanWithoutFinalStatusWaitsForTheCommit(t *testing.T) {
	h, g, job := pipelineFixture(t)
	acks(h)
	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n2", 100, 100, 100))
	pending := h.enqueue(plan)
	evaluateEach(h, pending)
	if answered(pending) {
		t.Fatal("a plan without a final status was answered before its entry committed")
	}
	index := g.commitNext(t)
	waitAnswered(t, pending)
	if res, err := pending.Wait(); err != nil || res.AllocIndex != index || res.EvalFinished {
		t.Fatalf("answer %+v, %v: want the committed result at %d", res, err, index)
	}
}
