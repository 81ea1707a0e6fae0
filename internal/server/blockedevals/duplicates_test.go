package blockedevals

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func TestBlockedEvals_GetDuplicatesWaitsForDuplicate(t *testing.T) {
	tr, _, clk := newTestTracker(t)
	got := make(chan []*structs.Evaluation)
	go func() { got <- tr.GetDuplicates(time.Hour) }()
	// The prune timer is one pending callback; the waiter's timeout is two.
	waitFor(t, "GetDuplicates to arm its timeout", func() bool { return clk.Pending() == 2 })
	select {
	case d := <-got:
		t.Fatalf("returned %v before any duplicate", ids(d))
	default:
	}
	older := mkEval(job("web"), snapshot(1))
	tr.Block(older)
	tr.Block(mkEval(job("web"), snapshot(2)))
	if d := <-got; !reflect.DeepEqual(ids(d), []string{older.ID}) {
		t.Fatalf("got %v", ids(d))
	}
	if clk.Pending() != 1 {
		t.Fatal("timeout timer not stopped")
	}
	if len(tr.TakeDuplicates()) != 0 {
		t.Fatal("GetDuplicates did not clear")
	}
}

func TestBlockedEvals_GetDuplicatesTimeout(t *testing.T) {
	tr, _, clk := newTestTracker(t)
	got := make(chan []*structs.Evaluation)
	go func() { got <- tr.GetDuplicates(time.Second) }()
	waitFor(t, "GetDuplicates to arm its timeout", func() bool { return clk.Pending() == 2 })
	clk.Advance(time.Second)
	if d := <-got; d != nil {
		t.Fatalf("timeout returned %v", ids(d))
	}
}

func TestBlockedEvals_GetDuplicatesImmediate(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	tr.Block(mkEval(job("web")))
	tr.Block(mkEval(job("web")))
	if d := tr.GetDuplicates(time.Hour); len(d) != 1 {
		t.Fatalf("got %d duplicates, want 1 without waiting", len(d))
	}
	if d := tr.GetDuplicates(0); d != nil {
		t.Fatalf("zero timeout returned %v, want nil at once", ids(d))
	}
}

func TestBlockedEvals_GetDuplicatesCtxCanceled(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan []*structs.Evaluation)
	go func() { got <- tr.GetDuplicatesCtx(ctx) }()
	cancel()
	if d := <-got; d != nil {
		t.Fatalf("canceled wait returned %v", ids(d))
	}
}
