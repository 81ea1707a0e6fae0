package blockedevals

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// takeDuplicates is the non-blocking take: Duplicates with a done context.
func takeDuplicates(tr *Tracker) []*structs.Evaluation {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return tr.Duplicates(ctx)
}

func TestBlockedEvals_DuplicatesWaitsForDuplicate(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	got := make(chan []*structs.Evaluation, 1)
	go func() { got <- tr.Duplicates(context.Background()) }()
	// With nothing pending a live context must keep it waiting: an empty
	// answer would spin the leader's reaper. Wait until it is parked on
	// the tracker (or has returned).
	testutil.WaitFor(t, 10*time.Second, "Duplicates to wait or return", func() bool {
		return len(got) > 0 || testutil.Parked("blockedevals.(*Tracker).Duplicates(", "blockedevals.TestBlockedEvals_DuplicatesWaitsForDuplicate in goroutine")
	})
	select {
	case d := <-got:
		t.Fatalf("returned %v with no duplicate pending", ids(d))
	default:
	}
	older := mkEval(job("web"), snapshot(1))
	tr.Block(older)
	tr.Block(mkEval(job("web"), snapshot(2)))
	if d := <-got; !reflect.DeepEqual(ids(d), []string{older.ID}) {
		t.Fatalf("got %v", ids(d))
	}
	if len(takeDuplicates(tr)) != 0 {
		t.Fatal("Duplicates did not clear")
	}
}

func TestBlockedEvals_DuplicatesImmediate(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	tr.Block(mkEval(job("web")))
	tr.Block(mkEval(job("web")))
	if d := takeDuplicates(tr); len(d) != 1 {
		t.Fatalf("got %d duplicates, want 1 without waiting", len(d))
	}
	if d := takeDuplicates(tr); d != nil {
		t.Fatalf("a done context with nothing pending returned %v, want nil at once", ids(d))
	}
}

func TestBlockedEvals_DuplicatesCanceled(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan []*structs.Evaluation)
	go func() { got <- tr.Duplicates(ctx) }()
	cancel()
	if d := <-got; d != nil {
		t.Fatalf("canceled wait returned %v", ids(d))
	}
}
