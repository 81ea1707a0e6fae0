package broker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

func TestBroker_DisableFlushesEverything(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("inflight", "service", "j1", 50, 1))
	inflight, tok := mustDequeue(t, b, "service")
	b.Enqueue(mkEval("pending", "service", "j1", 50, 2))
	b.Enqueue(mkEval("ready", "batch", "j2", 50, 3))
	delayed := mkEval("delayed", "service", "j3", 50, 4)
	delayed.WaitUntil = t0.Add(time.Minute)
	b.Enqueue(delayed)
	b.Enqueue(mkEval("nacked", "batch", "j4", 50, 5))
	n, ntok := mustDequeue(t, b, "batch")
	if n.ID != "ready" {
		t.Fatalf("got %s", n.ID)
	}
	if err := b.Nack(n.ID, ntok); err != nil {
		t.Fatal(err)
	}
	// Make one cancelable: ack inflight with two waiting evals.
	b.Enqueue(mkEval("pending2", "service", "j1", 50, 6))
	b.EnqueueAll(map[*structs.Evaluation]string{inflight.Copy(): tok}) // a requeue too
	if err := b.Ack(inflight.ID, tok); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.TotalReady == 0 || s.TotalWaiting == 0 || s.TotalPending == 0 || s.TotalCancelable == 0 {
		t.Fatalf("setup did not fill every queue: %+v", s)
	}

	b.SetEnabled(false)
	if b.Enabled() {
		t.Fatal("still enabled")
	}
	wantStats(t, b, 0, 0, 0, 0, 0)
	if len(b.Stats().ByScheduler) != 0 {
		t.Fatalf("by scheduler %+v", b.Stats().ByScheduler)
	}
	if clk.Pending() != 0 {
		t.Fatalf("%d timers still armed after flush", clk.Pending())
	}
	if _, _, err := tryDequeue(b, []string{"service"}); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("dequeue while disabled: %v", err)
	}
	b.Enqueue(mkEval("ignored", "service", "j9", 50, 9))
	clk.Advance(time.Hour) // stale timers must not resurrect anything

	// Leader change: re-enabled and restored from state.
	b.SetEnabled(true)
	wantStats(t, b, 0, 0, 0, 0, 0)
	b.Enqueue(mkEval("pending", "service", "j1", 50, 2))
	e, tok := mustDequeue(t, b, "service")
	if e.ID != "pending" {
		t.Fatalf("after restore got %s", e.ID)
	}
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
}

func TestBroker_EnqueueAllRequeue(t *testing.T) {
	setup := func(t *testing.T) (*Broker, *clock.Manual, *structs.Evaluation, string) {
		b, clk := newTestBroker(t)
		b.Enqueue(mkEval("e", "service", "j1", 50, 1))
		e, tok := mustDequeue(t, b, "service")
		unblocked := e.Copy()
		unblocked.ModifyIndex = 7
		b.EnqueueAll(map[*structs.Evaluation]string{unblocked: tok})
		wantStats(t, b, 0, 1, 0, 0, 0) // not delivered twice
		return b, clk, e, tok
	}
	t.Run("ack enqueues the requeued copy", func(t *testing.T) {
		b, _, e, tok := setup(t)
		if err := b.Ack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		got, _ := mustDequeue(t, b, "service")
		if got.ID != "e" || got.ModifyIndex != 7 {
			t.Fatalf("got %s@%d, want the requeued copy", got.ID, got.ModifyIndex)
		}
	})
	t.Run("nack retries the requeued copy once", func(t *testing.T) {
		b, clk, e, tok := setup(t)
		if err := b.Nack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		wantStats(t, b, 0, 0, 1, 0, 0)
		clk.Advance(time.Minute) // past the nack delay
		got, _ := mustDequeue(t, b, "service")
		if got.ID != "e" || got.ModifyIndex != 7 {
			t.Fatalf("retried %s@%d, want the requeued copy", got.ID, got.ModifyIndex)
		}
		mustNotDequeue(t, b, "service")
	})
	t.Run("stale token does not requeue", func(t *testing.T) {
		b, _, e, tok := setup(t)
		b.EnqueueAll(map[*structs.Evaluation]string{e.Copy(): "stale"})
		wantStats(t, b, 0, 1, 0, 0, 0)
		if err := b.Ack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		wantStats(t, b, 1, 0, 0, 0, 0)
	})
	t.Run("token of a finished delivery is a plain enqueue", func(t *testing.T) {
		b, _ := newTestBroker(t)
		b.Enqueue(mkEval("e", "service", "j1", 50, 1))
		e, tok := mustDequeue(t, b, "service")
		if err := b.Ack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		b.EnqueueAll(map[*structs.Evaluation]string{e.Copy(): tok})
		wantStats(t, b, 1, 0, 0, 0, 0)
	})
}

func TestBroker_PausedDeliversNothingToWorkersUntilResumed(t *testing.T) {
	b, _ := newTestBroker(t)
	b.SetPaused(true)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	mustNotDequeue(t, b, "service")
	wantStats(t, b, 1, 0, 0, 0, 0) // held, not dropped

	// A worker blocked in Dequeue is woken by the resume.
	got := make(chan string, 1)
	go func() {
		e, _, err := b.Dequeue(context.Background(), []string{"service"})
		if err != nil {
			got <- err.Error()
			return
		}
		got <- e.ID
	}()
	testutil.WaitFor(t, 5*time.Second, "the worker to wait", func() bool { return b.numWaiters() == 1 })
	b.SetPaused(false)
	if id := <-got; id != "e" {
		t.Fatalf("after resume got %q", id)
	}
	if b.Paused() {
		t.Fatal("still paused")
	}
}

func TestBroker_PausedStillHandsOverUndeliverableEvals(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	for i := 0; i < 3; i++ { // the default delivery limit
		e, tok := mustDequeue(t, b, "service")
		if i == 2 {
			b.SetPaused(true)
		}
		if err := b.Nack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		clk.Advance(DefaultSubsequentNackDelay) // past the nack delay
	}
	if e, _ := mustDequeue(t, b, FailedQueue); e.ID != "e" {
		t.Fatalf("failed queue gave %s", e.ID)
	}
}
