package broker

import (
	"errors"
	"testing"
	"time"
)

func TestBroker_NackRequeuesAfterDelays(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	b.Enqueue(mkEval("other", "service", "j1", 50, 2)) // must stay blocked behind e

	for i, delay := range []time.Duration{time.Second, 20 * time.Second} {
		e, tok := mustDequeue(t, b, "service")
		if e.ID != "e" {
			t.Fatalf("delivery %d got %s", i+1, e.ID)
		}
		if err := b.Nack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
		wantStats(t, b, 0, 0, 1, 1, 0)
		clk.Advance(delay - time.Millisecond)
		mustNotDequeue(t, b, "service")
		clk.Advance(time.Millisecond)
		wantStats(t, b, 1, 0, 0, 1, 0)
	}
}

func TestBroker_DeliveryLimitMovesToFailedQueue(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	for i := 0; i < DefaultDeliveryLimit; i++ {
		clk.Advance(time.Minute) // past any nack delay
		e, tok := mustDequeue(t, b, "service")
		if err := b.Nack(e.ID, tok); err != nil {
			t.Fatal(err)
		}
	}
	mustNotDequeue(t, b, "service")
	if s := b.Stats(); s.ByScheduler[FailedQueue].Ready != 1 || s.TotalWaiting != 0 {
		t.Fatalf("stats %+v, failed %+v", s, s.ByScheduler[FailedQueue])
	}

	// The job stays blocked until the reaper acks the failed eval.
	b.Enqueue(mkEval("next", "service", "j1", 50, 5))
	e, tok := mustDequeue(t, b, FailedQueue)
	if e.ID != "e" {
		t.Fatalf("failed queue gave %s", e.ID)
	}
	mustNotDequeue(t, b, "service")
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	if e, _ := mustDequeue(t, b, "service"); e.ID != "next" {
		t.Fatalf("after reaping got %s", e.ID)
	}
}

func TestBroker_NackTimeoutFires(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	e, tok := mustDequeue(t, b, "service")
	clk.Advance(DefaultNackTimeout - time.Second)
	if got, ok := b.Outstanding(e.ID); !ok || got != tok {
		t.Fatalf("Outstanding before timeout = %q %v", got, ok)
	}
	clk.Advance(time.Second)
	if _, ok := b.Outstanding(e.ID); ok {
		t.Fatal("still outstanding after the nack timeout")
	}
	wantStats(t, b, 0, 0, 1, 0, 0)
	if err := b.Ack(e.ID, tok); !errors.Is(err, ErrNotOutstanding) {
		t.Fatalf("late ack: %v", err)
	}
	clk.Advance(DefaultInitialNackDelay)
	if _, tok2 := mustDequeue(t, b, "service"); tok2 == tok {
		t.Fatal("redelivery reused the token")
	}
}

func TestBroker_OutstandingResetPostponesNackTimeout(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	e, tok := mustDequeue(t, b, "service")
	clk.Advance(50 * time.Second)
	if err := b.OutstandingReset(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	clk.Advance(59 * time.Second)
	if _, ok := b.Outstanding(e.ID); !ok {
		t.Fatal("nacked despite the reset")
	}
	clk.Advance(time.Second)
	if _, ok := b.Outstanding(e.ID); ok {
		t.Fatal("not nacked 60s after the reset")
	}
}

func TestBroker_PauseNackTimeout(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	e, tok := mustDequeue(t, b, "service")
	if err := b.PauseNackTimeout(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Minute)
	if _, ok := b.Outstanding(e.ID); !ok {
		t.Fatal("nacked while paused")
	}
	if err := b.ResumeNackTimeout(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultNackTimeout)
	if _, ok := b.Outstanding(e.ID); ok {
		t.Fatal("not nacked after resume + timeout")
	}
}

func TestBroker_AckNackErrors(t *testing.T) {
	b, _ := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	e, tok := mustDequeue(t, b, "service")
	ops := map[string]func(id, token string) error{
		"Ack": b.Ack, "Nack": b.Nack, "OutstandingReset": b.OutstandingReset,
		"PauseNackTimeout": b.PauseNackTimeout,
	}
	cases := []struct {
		name, id, token string
		want            error
	}{
		{"unknown id", "nope", tok, ErrNotOutstanding},
		{"wrong token", e.ID, "stale", ErrTokenMismatch},
	}
	for name, op := range ops {
		for _, tc := range cases {
			if err := op(tc.id, tc.token); !errors.Is(err, tc.want) {
				t.Errorf("%s %s: %v, want %v", name, tc.name, err, tc.want)
			}
		}
	}
	// The failed calls changed nothing.
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	if err := b.Ack(e.ID, tok); !errors.Is(err, ErrNotOutstanding) {
		t.Fatalf("double ack: %v", err)
	}
	b.SetEnabled(false)
	if err := b.Nack(e.ID, tok); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("nack while disabled: %v", err)
	}
}
