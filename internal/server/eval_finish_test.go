package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// dequeueForFinish registers a job whose eval waits in the leader's broker
// (no worker takes service evals) and dequeues it as a follower's worker
// would, returning the eval and its token.
func dequeueForFinish(t *testing.T, opts ...func(*Config)) (*pipeline, *structs.Evaluation, string) {
	t.Helper()
	opts = append(opts, func(c *Config) { c.EnabledSchedulers = []string{"none"} })
	p := newPipeline(t, 1, func(*structs.Evaluation, scheduler.State, scheduler.Planner) error { return nil }, opts...)
	evalID := p.register(mock.Job("web"))
	reply, err := EvalDequeue.Call(context.Background(), p.srv, &structs.EvalDequeueRequest{
		Schedulers: []string{structs.JobTypeService}, Timeout: 5 * time.Second, ServerID: "follower-1", BootID: "boot-1"})
	if err != nil || reply.Eval == nil || reply.Eval.ID != evalID {
		t.Fatalf("dequeue = %+v, %v; want eval %s", reply, err, evalID)
	}
	return p, reply.Eval, reply.Token
}

// failEvalWritesWhen makes the server's eval update entries fail while
// *fail is set.
func failEvalWritesWhen(fail *bool) func(*Config) {
	return func(c *Config) {
		c.RaftApplyFault = func(mt structs.MessageType) error {
			if *fail && mt == structs.EvalUpdateRequestType {
				return errors.New("injected: raft apply failed")
			}
			return nil
		}
	}
}

func completed(e *structs.Evaluation) *structs.Evaluation {
	c := e.Copy()
	c.Status = structs.EvalStatusComplete
	return c
}

// A follower's worker finishes an eval in one call: the leader writes the
// final status and then acks the eval under the worker's token.
func TestEvalUpdate_AcksTheFinishedEvalAfterItsStatusCommits(t *testing.T) {
	p, eval, token := dequeueForFinish(t)
	if _, err := EvalUpdate.Call(context.Background(), p.srv, &structs.EvalUpdateArgs{
		Evals: []*structs.Evaluation{completed(eval)}, AckEvalID: eval.ID, AckToken: token}); err != nil {
		t.Fatal(err)
	}
	if got := p.eval(eval.ID).Status; got != structs.EvalStatusComplete {
		t.Fatalf("status %q, want complete", got)
	}
	if _, held := p.srv.broker.Outstanding(eval.ID); held {
		t.Fatal("the eval is still outstanding in the broker after a finishing update")
	}
	if server, _, held := p.srv.remoteHeld.holder(eval.ID); held {
		t.Fatalf("the leader still records the eval as held by %s", server)
	}
}

// A status write that fails acks nothing: the eval stays outstanding under
// the worker's token (the worker nacks it), never acked without its status.
func TestEvalUpdate_FailedWriteDoesNotAck(t *testing.T) {
	fail := false
	p, eval, token := dequeueForFinish(t, failEvalWritesWhen(&fail))
	fail = true
	if _, err := EvalUpdate.Call(context.Background(), p.srv, &structs.EvalUpdateArgs{
		Evals: []*structs.Evaluation{completed(eval)}, AckEvalID: eval.ID, AckToken: token}); err == nil {
		t.Fatal("a failed status write returned no error")
	}
	if held, ok := p.srv.broker.Outstanding(eval.ID); !ok || held != token {
		t.Fatalf("outstanding = %q, %v; want the eval still held under the worker's token", held, ok)
	}
	if got := p.eval(eval.ID).Status; got == structs.EvalStatusComplete {
		t.Fatal("the failed write was applied")
	}
}

// An ack under a stale token (the eval was redelivered meanwhile) is an
// error even though the status committed, so the worker knows it did not
// finish the eval; and the leader keeps recording the eval's real holder,
// so that holder's failure still gives the eval back at once.
func TestEvalUpdate_StaleAckTokenIsAnError(t *testing.T) {
	p, eval, token := dequeueForFinish(t)
	_, err := EvalUpdate.Call(context.Background(), p.srv, &structs.EvalUpdateArgs{
		Evals: []*structs.Evaluation{completed(eval)}, AckEvalID: eval.ID, AckToken: "not-the-token"})
	if err == nil {
		t.Fatal("an ack under a stale token returned no error")
	}
	if server, held, ok := p.srv.remoteHeld.holder(eval.ID); !ok || server != "follower-1" || held != token {
		t.Fatalf("holder = %q, %q, %v; want follower-1 under its token", server, held, ok)
	}
	if _, err := EvalNack.Call(context.Background(), p.srv, &structs.EvalAckRequest{EvalID: eval.ID, Token: "not-the-token"}); err == nil {
		t.Fatal("a nack under a stale token returned no error")
	}
	if _, _, ok := p.srv.remoteHeld.holder(eval.ID); !ok {
		t.Fatal("a nack under a stale token forgot the eval's holder")
	}
}

// The leader's own workers finish through the local broker: the final
// status is written, and only a committed write is followed by the ack.
func TestLocalFinishEval_AcksOnlyACommittedStatus(t *testing.T) {
	fail := false
	p, eval, token := dequeueForFinish(t, failEvalWritesWhen(&fail))
	local := localBackend{p.srv}
	fail = true
	if err := local.FinishEval(completed(eval), eval.ID, token); err == nil {
		t.Fatal("a failed status write returned no error")
	}
	if held, ok := p.srv.broker.Outstanding(eval.ID); !ok || held != token {
		t.Fatalf("outstanding = %q, %v; want the eval still held after its status write failed", held, ok)
	}
	fail = false
	if err := local.FinishEval(completed(eval), eval.ID, token); err != nil {
		t.Fatal(err)
	}
	if _, held := p.srv.broker.Outstanding(eval.ID); held || p.eval(eval.ID).Status != structs.EvalStatusComplete {
		t.Fatalf("after a committed write: outstanding %v, status %s; want acked and complete", held, p.eval(eval.ID).Status)
	}
}

// finishedWithPlan asserts that eval's final status was written in the
// entry of the plan that placed allocs (one index for both), that the
// leader acked it and no longer records a holder, and that its timeline,
// stored and live, has one complete step, at the entry's time.
func finishedWithPlan(t *testing.T, leader, worker *Server, eval *structs.Evaluation, allocs []*structs.Allocation) {
	t.Helper()
	// The worker's server records the complete step only once its plan
	// came back saying the eval is finished (before or after the leader's
	// ack, which waits for the entry's commit).
	testutil.WaitFor(t, 10*time.Second, "the worker to learn its plan finished the eval", func() (bool, string) {
		steps := worker.timeline.Entries(eval.ID)
		for _, step := range steps {
			if step.Status == structs.EvalStatusComplete && step.Time == eval.ModifyTime {
				return true, ""
			}
		}
		return false, fmt.Sprintf("steps %v", steps)
	})
	if len(allocs) == 0 || eval.ModifyIndex != allocs[0].CreateIndex {
		t.Fatalf("eval written at index %d, allocs %v: want the plan's entry to write both", eval.ModifyIndex, allocs)
	}
	testutil.WaitFor(t, 10*time.Second, "the leader to ack the eval", func() (bool, string) {
		_, outstanding := leader.broker.Outstanding(eval.ID)
		server, _, held := leader.remoteHeld.holder(eval.ID)
		return !outstanding && !held, fmt.Sprintf("outstanding %v, held by %q", outstanding, server)
	})
	var complete []*structs.EvalTimelineEntry
	for _, step := range leader.EvalTimeline(eval) {
		if step.Status == structs.EvalStatusComplete {
			complete = append(complete, step)
		}
	}
	if len(complete) != 1 || complete[0].Time != eval.ModifyTime {
		t.Fatalf("complete steps %v, eval modified at %d: want one, at the entry's time", complete, eval.ModifyTime)
	}
}

// On a single server the leader's own worker finishes an eval with its
// plan: no separate status write, no ack from the worker.
func TestLocalWorker_FinishesTheEvalWithItsPlan(t *testing.T) {
	s := realServer(t)
	if _, err := s.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: e2eNode(1, 4000, 4096)}); err != nil {
		t.Fatal(err)
	}
	reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob("web", 2, 100, 64)})
	if err != nil {
		t.Fatal(err)
	}
	eval := waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
	finishedWithPlan(t, s, s, eval, liveAllocs(t, s, "web"))
	if eval.QueuedAllocations["web"] != 0 {
		t.Fatalf("queued %v after placing every alloc", eval.QueuedAllocations)
	}
}

// submitFinishing dequeues a job's eval as follower-1's worker would and
// submits a plan placing one alloc, carrying the eval's final status when
// finish is set and asking for the next eval of the service scheduler;
// opts adjust the request.
func submitFinishing(t *testing.T, p *pipeline, finish bool, opts ...func(*structs.PlanSubmitRequest)) *structs.PlanSubmitResponse {
	t.Helper()
	next := &structs.EvalDequeueRequest{Schedulers: []string{structs.JobTypeService}, ServerID: "follower-1", BootID: "boot-1"}
	got, err := EvalDequeue.Call(context.Background(), p.srv, &structs.EvalDequeueRequest{
		Schedulers: next.Schedulers, Timeout: time.Second, ServerID: next.ServerID, BootID: next.BootID})
	if err != nil || got.Eval == nil {
		t.Fatalf("dequeue = %+v, %v", got, err)
	}
	plan := placeOn(got.Eval, p.srv.State(), "n1", 100, 100)
	plan.EvalID, plan.EvalToken = got.Eval.ID, got.Token
	if finish {
		plan.FinalEval = completed(got.Eval)
	}
	req := &structs.PlanSubmitRequest{Plan: plan, Next: next}
	for _, opt := range opts {
		opt(req)
	}
	reply, err := PlanSubmit.Call(context.Background(), p.srv, req)
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

func setupTwoEvals(t *testing.T) (*pipeline, string) {
	t.Helper()
	p := newPipeline(t, 1, func(*structs.Evaluation, scheduler.State, scheduler.Planner) error { return nil },
		func(c *Config) { c.EnabledSchedulers = []string{"none"} })
	if _, err := p.srv.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: pipelineNode("n1", 4000, 4096)}); err != nil {
		t.Fatal(err)
	}
	p.register(mock.Job("first"))
	return p, p.register(mock.Job("second"))
}

// A follower's plan that finishes its eval brings back the worker's next
// eval, held by that follower as if it had dequeued it: the worker saves
// the round trip of Eval.Dequeue.
func TestPlanSubmit_FinishingPlanHandsTheWorkerItsNextEval(t *testing.T) {
	p, second := setupTwoEvals(t)
	reply := submitFinishing(t, p, true)
	if !reply.Result.EvalFinished || reply.Next == nil || reply.Next.Eval == nil || reply.Next.Eval.ID != second {
		t.Fatalf("finished %v, next %+v; want the second job's eval %s", reply.Result.EvalFinished, reply.Next, second)
	}
	if token, ok := p.srv.broker.Outstanding(second); !ok || token != reply.Next.Token {
		t.Fatalf("the next eval is outstanding=%v under %q, want its reply token %q", ok, token, reply.Next.Token)
	}
	if server, _, ok := p.srv.remoteHeld.holder(second); !ok || server != "follower-1" {
		t.Fatalf("next eval held by %q (%v), want follower-1", server, ok)
	}
	if reply.Next.WaitIndex < reply.Next.Eval.ModifyIndex {
		t.Fatalf("wait index %d before the eval's own %d", reply.Next.WaitIndex, reply.Next.Eval.ModifyIndex)
	}
}

// A plan that leaves its eval to the worker (no final status) brings back
// nothing: the worker still has writing to do, and the next eval stays
// in the broker for whoever asks first.
func TestPlanSubmit_PlanThatDoesNotFinishHandsNothing(t *testing.T) {
	p, second := setupTwoEvals(t)
	reply := submitFinishing(t, p, false)
	if reply.Result.EvalFinished || reply.Next != nil {
		t.Fatalf("finished %v, next %+v; want neither", reply.Result.EvalFinished, reply.Next)
	}
	if _, ok := p.srv.broker.Outstanding(second); ok {
		t.Fatal("the second eval was dequeued for a worker that did not ask in time")
	}
}

// A sender that has its plan gets a result that names the accepted parts
// instead of carrying them back; one that does not say so (a server of an
// earlier version) gets them whole.
func TestPlanSubmit_ResultByReferenceNamesTheAcceptedNodes(t *testing.T) {
	p, _ := setupTwoEvals(t)
	reply := submitFinishing(t, p, false, func(r *structs.PlanSubmitRequest) { r.ResultByReference = true })
	if reply.Accepted == nil || !slices.Equal(reply.Accepted.Placements, []string{"n1"}) {
		t.Fatalf("accepted %+v, want the placements on n1", reply.Accepted)
	}
	if len(reply.Result.NodeAllocation) != 0 || reply.Result.AllocIndex == 0 {
		t.Fatalf("result by reference carries %d nodes' placements, alloc index %d", len(reply.Result.NodeAllocation), reply.Result.AllocIndex)
	}

	whole := submitFinishing(t, p, false)
	if whole.Accepted != nil || len(whole.Result.NodeAllocation["n1"]) != 1 {
		t.Fatalf("without asking: accepted %+v, placements %v; want the placement itself", whole.Accepted, whole.Result.NodeAllocation)
	}
}

// When the entry of a plan that finished its eval fails after the worker
// was answered, the leader nacks the eval for the worker, forgets the
// follower's hold, and the broker delivers the eval again.
func TestNackEvalOfFailedPlan_ReturnsTheEvalToTheBroker(t *testing.T) {
	p, _ := setupTwoEvals(t)
	req := &structs.EvalDequeueRequest{Schedulers: []string{structs.JobTypeService}, Timeout: time.Second, ServerID: "follower-1", BootID: "boot-1"}
	got, err := EvalDequeue.Call(context.Background(), p.srv, req)
	if err != nil || got.Eval == nil {
		t.Fatalf("dequeue = %+v, %v", got, err)
	}
	if err := p.srv.releaseHeld(got.Eval.ID, got.Token, false); err != nil {
		t.Fatal(err)
	}
	if _, _, held := p.srv.remoteHeld.holder(got.Eval.ID); held {
		t.Fatal("the follower still holds the nacked eval")
	}
	if _, outstanding := p.srv.broker.Outstanding(got.Eval.ID); outstanding {
		t.Fatal("the eval is still outstanding after the nack")
	}
	// Redelivered after the broker's nack delay: held back, not lost.
	if st := p.srv.broker.Stats(); st.TotalUnacked != 0 || st.TotalWaiting+st.TotalReady != 2 {
		t.Fatalf("broker %+v: want the nacked eval waiting out its delay and the other ready", st)
	}
}
