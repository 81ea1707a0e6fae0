package planapply

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func TestPlanQueue_PriorityOrder(t *testing.T) {
	q := NewPlanQueue()
	q.SetEnabled(true)
	in := []struct {
		eval     string
		priority int
	}{{"a", 50}, {"b", 70}, {"c", 50}, {"d", 100}, {"e", 70}, {"f", 10}}
	for _, p := range in {
		if _, err := q.Enqueue(&structs.Plan{EvalID: p.eval, Priority: p.priority}); err != nil {
			t.Fatal(err)
		}
	}
	if q.Stats() != len(in) {
		t.Fatalf("depth %d", q.Stats())
	}
	var got string
	for p := tryDequeue(q); p != nil; p = tryDequeue(q) {
		got += p.Plan.EvalID
	}
	if want := "dbeacf"; got != want {
		t.Fatalf("order %q, want %q (priority desc, then arrival)", got, want)
	}
}

func TestPlanQueue_Disabled(t *testing.T) {
	q := NewPlanQueue()
	if _, err := q.Enqueue(&structs.Plan{}); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("enqueue on a disabled queue: %v", err)
	}
	if _, err := q.Enqueue(nil); !errors.Is(err, ErrNilPlan) {
		t.Fatalf("nil plan: %v", err)
	}
	q.SetEnabled(true)
	f1, _ := q.Enqueue(&structs.Plan{EvalID: "a"})
	f2, _ := q.Enqueue(&structs.Plan{EvalID: "b"})
	q.SetEnabled(false)
	for _, f := range []PlanFuture{f1, f2} {
		if res, err := f.Wait(); !errors.Is(err, ErrNotLeader) || res != nil {
			t.Fatalf("future after disable: %v %v", res, err)
		}
	}
	if q.Stats() != 0 || tryDequeue(q) != nil || q.Enabled() {
		t.Fatal("disabled queue still holds plans")
	}
}

// A plan taken off the queue before a disable keeps the applier's answer.
func TestPlanQueue_RespondOnce(t *testing.T) {
	q := NewPlanQueue()
	q.SetEnabled(true)
	f, _ := q.Enqueue(&structs.Plan{})
	p := tryDequeue(q)
	q.SetEnabled(false)
	want := &structs.PlanResult{AllocIndex: 7}
	p.respond(want, nil)
	p.respond(nil, ErrNotLeader)
	if res, err := f.Wait(); res != want || err != nil {
		t.Fatalf("got %v %v", res, err)
	}
}

func TestPlanQueue_DequeueBlocksUntilEnqueue(t *testing.T) {
	q := NewPlanQueue()
	q.SetEnabled(true)
	got := make(chan *PendingPlan)
	go func() {
		p, _ := q.Dequeue(context.Background())
		got <- p
	}()
	if _, err := q.Enqueue(&structs.Plan{EvalID: "x"}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p.Plan.EvalID != "x" {
			t.Fatalf("dequeued %q", p.Plan.EvalID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Dequeue did not wake")
	}
}

func TestPlanQueue_DequeueContext(t *testing.T) {
	q := NewPlanQueue()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := q.Dequeue(ctx); p != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v %v", p, err)
	}
}
