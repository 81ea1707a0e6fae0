package broker

import (
	"reflect"
	"testing"
	"time"
)

func TestBroker_WaitUntilHoldsThenReleases(t *testing.T) {
	b, clk := newTestBroker(t)
	late := mkEval("late", "service", "j1", 50, 1)
	late.WaitUntil = t0.Add(30 * time.Second)
	early := mkEval("early", "service", "j2", 50, 2)
	early.WaitUntil = t0.Add(10 * time.Second)
	past := mkEval("past", "service", "j3", 50, 3)
	past.WaitUntil = t0.Add(-time.Second) // already due: ready at once
	b.Enqueue(late)
	b.Enqueue(early) // earlier than the armed timer: re-arms
	b.Enqueue(past)
	wantStats(t, b, 1, 0, 2, 0, 0)
	if s := b.Stats(); s.ByScheduler["service"].Delayed != 2 {
		t.Fatalf("delayed by scheduler %+v", s.ByScheduler["service"])
	}

	steps := []struct {
		advance time.Duration
		want    []string
	}{
		{0, []string{"past"}},
		{10*time.Second - time.Nanosecond, nil},
		{time.Nanosecond, []string{"early"}},
		{19 * time.Second, nil},
		{time.Second, []string{"late"}},
	}
	for i, s := range steps {
		clk.Advance(s.advance)
		if got := dequeueIDs(t, b, "service"); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("step %d (+%v): got %v, want %v", i, s.advance, got, s.want)
		}
	}
	if clk.Pending() != 3 { // only the three nack timers remain
		t.Fatalf("clock timers pending = %d", clk.Pending())
	}
}

func TestBroker_DelayedEvalWaitsForItsJobOnRelease(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("now", "service", "j1", 50, 1))
	later := mkEval("later", "service", "j1", 50, 2)
	later.WaitUntil = t0.Add(5 * time.Second)
	b.Enqueue(later)
	e, tok := mustDequeue(t, b, "service")
	clk.Advance(5 * time.Second)
	wantStats(t, b, 0, 1, 0, 1, 0)
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	if e, _ := mustDequeue(t, b, "service"); e.ID != "later" {
		t.Fatalf("got %s", e.ID)
	}
}

// A leadership flap drops the held evals and their timer; the next leader
// restores the same eval with the same WaitUntil, and it must be held and
// released again, not left without a timer because that instant was the
// one the old timer was armed for.
func TestBroker_DelayedEvalReleasedAfterDisableAndReenable(t *testing.T) {
	b, clk := newTestBroker(t)
	held := mkEval("held", "service", "j1", 50, 1)
	held.WaitUntil = t0.Add(10 * time.Second)
	b.Enqueue(held)
	b.SetEnabled(false)
	b.SetEnabled(true)
	b.Enqueue(held)
	wantStats(t, b, 0, 0, 1, 0, 0)

	clk.Advance(10 * time.Second)
	if got := dequeueIDs(t, b, "service"); !reflect.DeepEqual(got, []string{"held"}) {
		t.Fatalf("after WaitUntil got %v, want [held]", got)
	}
}
