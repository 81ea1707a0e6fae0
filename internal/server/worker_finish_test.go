package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// recordingBackend is a scheduling backend that records, in order, what a
// worker asks of it. A write of an eval in status holdStatus blocks until
// release is closed, or fails when failStatus matches.
type recordingBackend struct {
	mu         sync.Mutex
	ops        []string
	holdStatus string
	release    chan struct{}
	failStatus string
}

func (r *recordingBackend) record(op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op)
}

func (r *recordingBackend) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops)
}

func (r *recordingBackend) Dequeue(context.Context, []string) (*structs.Evaluation, string, uint64, error) {
	return nil, "", 0, errors.New("not used")
}
func (r *recordingBackend) Ack(evalID, _ string) error  { r.record("ack " + evalID); return nil }
func (r *recordingBackend) Nack(evalID, _ string) error { r.record("nack " + evalID); return nil }
func (r *recordingBackend) SubmitPlan(*structs.Plan, []string) (*structs.PlanResult, *dequeued, error) {
	r.record("plan")
	return &structs.PlanResult{}, nil, nil
}

func (r *recordingBackend) FinishEval(final *structs.Evaluation, evalID, token string) error {
	return writeThenAck(r, final, evalID, token)
}

func (r *recordingBackend) UpsertEvals(evals []*structs.Evaluation, _ string) error {
	e := evals[0]
	if e.Status == r.holdStatus {
		<-r.release
	}
	if e.Status == r.failStatus {
		r.record("failed write " + e.ID)
		return errors.New("not leader")
	}
	r.record(fmt.Sprintf("write %s %s", e.ID, e.Status))
	return nil
}

// processWith runs one eval through a fresh worker of p's server against
// backend, finishing in the background as the run loop does, and returns
// once the worker is free for its next eval.
func processWith(p *pipeline, backend schedulingBackend, eval *structs.Evaluation) *Worker {
	w := newWorker(p.srv, "finish-test")
	w.process(backend, eval, "token-1", 0, true)
	return w
}

// waitFinished waits until the worker's background finishes are done.
func waitFinished(t *testing.T, w *Worker) {
	t.Helper()
	testutil.WaitFor(t, 5*time.Second, "the worker's background finishes", func() (bool, string) {
		return len(w.finishing) == 0, fmt.Sprintf("%d still finishing", len(w.finishing))
	})
}

func completeScript(eval *structs.Evaluation, _ scheduler.State, p scheduler.Planner) error {
	return complete(eval, p)
}

func finishEval(id string) *structs.Evaluation {
	return &structs.Evaluation{ID: id, Namespace: "default", JobID: "j", Type: structs.JobTypeService,
		TriggeredBy: structs.EvalTriggerJobRegister, Status: structs.EvalStatusPending}
}

// The worker is free for its next eval while the last one's status
// commits, but that eval is acked only after its status write succeeded:
// an eval acked with its status lost would stay pending forever.
func TestWorker_AcksOnlyAfterTheFinalStatusCommits(t *testing.T) {
	p := newPipeline(t, 1, completeScript)
	rec := &recordingBackend{holdStatus: structs.EvalStatusComplete, release: make(chan struct{})}
	w := processWith(p, rec, finishEval("e1"))

	if got := rec.recorded(); len(got) != 0 {
		t.Fatalf("before the status write returned the worker already did %v", got)
	}
	close(rec.release)
	waitFinished(t, w)
	want := []string{"write e1 complete", "ack e1"}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

// A final status write that fails (the leader was lost) nacks the eval,
// so it is scheduled again instead of acked without its status.
func TestWorker_FailedFinalStatusWriteNacks(t *testing.T) {
	p := newPipeline(t, 1, completeScript)
	rec := &recordingBackend{failStatus: structs.EvalStatusComplete}
	w := processWith(p, rec, finishEval("e2"))
	waitFinished(t, w)
	want := []string{"failed write e2", "nack e2"}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

// Holding the status back never reorders the scheduler's writes: a write
// the scheduler makes after UpdateEval (here a follow-up eval) first
// flushes the held status, so raft sees them in the scheduler's order.
func TestWorker_HeldStatusKeepsTheSchedulersWriteOrder(t *testing.T) {
	p := newPipeline(t, 1, func(eval *structs.Evaluation, _ scheduler.State, pl scheduler.Planner) error {
		done := eval.Copy()
		done.Status = structs.EvalStatusComplete
		if err := pl.UpdateEval(done); err != nil {
			return err
		}
		next := finishEval("follow-up")
		next.PreviousEval = eval.ID
		if err := pl.CreateEval(next); err != nil {
			return err
		}
		again := done.Copy()
		again.NextEval = next.ID
		return pl.UpdateEval(again)
	})
	rec := &recordingBackend{}
	w := processWith(p, rec, finishEval("e3"))
	waitFinished(t, w)
	want := []string{"write e3 complete", "write follow-up pending", "write e3 complete", "ack e3"}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

// A scheduler error after UpdateEval still writes the held status before
// the nack, as it did when UpdateEval wrote at once.
func TestWorker_SchedulerErrorFlushesHeldStatusThenNacks(t *testing.T) {
	p := newPipeline(t, 1, func(eval *structs.Evaluation, _ scheduler.State, pl scheduler.Planner) error {
		done := eval.Copy()
		done.Status = structs.EvalStatusFailed
		if err := pl.UpdateEval(done); err != nil {
			return err
		}
		return errors.New("scheduler broke")
	})
	rec := &recordingBackend{}
	processWith(p, rec, finishEval("e4"))
	want := []string{"write e4 failed", "nack e4"}
	if got := rec.recorded(); !slices.Equal(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

// The leader pauses a plan's eval's nack timer itself, so a plan for an
// eval its submitter no longer holds (redelivered to another worker) is
// refused before it reaches the applier.
func TestSubmitHeldPlan_RefusesAnEvalNotHeld(t *testing.T) {
	p := newPipeline(t, 1, completeScript)
	plan := &structs.Plan{EvalID: "nobody-holds-this", EvalToken: "stale-token", Job: mock.Job("j")}
	_, err := p.srv.submitHeldPlan(plan)
	if err == nil || !strings.Contains(err.Error(), "no longer held") {
		t.Fatalf("submitHeldPlan = %v, want an eval-not-held error", err)
	}
}

// A worker that is paused (its server became leader) or stops while it
// holds an eval handed to it with a plan's result gives that eval back
// at once: nobody else would take it before the broker's nack timeout.
func TestWorker_PausedWorkerGivesBackItsHandedEval(t *testing.T) {
	p := newPipeline(t, 1, completeScript)
	rec := &recordingBackend{}
	w := newWorker(p.srv, "handed-test")
	w.next, w.nextBackend = &dequeued{eval: finishEval("handed"), token: "t"}, rec
	w.SetPaused(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	testutil.WaitFor(t, 5*time.Second, "the handed eval to be nacked", func() (bool, string) {
		return slices.Equal(rec.recorded(), []string{"nack handed"}), fmt.Sprint(rec.recorded())
	})
	cancel()
	<-done
	if w.next != nil || w.handedNext.Load() != 0 {
		t.Fatalf("next %v, processed %d handed evals; want it given back unprocessed", w.next, w.handedNext.Load())
	}
}
