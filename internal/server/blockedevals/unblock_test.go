package blockedevals

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestBlockedEvals_UnblockByClass(t *testing.T) {
	cases := []struct {
		name      string
		opts      []evalOpt
		class     string
		unblocked bool
	}{
		{"eligible class unblocks", []evalOpt{withClasses(map[string]bool{"c1": true, "c2": false})}, "c1", true},
		{"ineligible class keeps blocked", []evalOpt{withClasses(map[string]bool{"c1": true, "c2": false})}, "c2", false},
		{"unknown class unblocks", []evalOpt{withClasses(map[string]bool{"c1": false})}, "c9", true},
		{"no eligibility at all unblocks", nil, "c1", true},
		{"escaped unblocked by any class", []evalOpt{escaped(), withClasses(map[string]bool{"c1": false})}, "c1", true},
		{"per-node eval ignores class unblock", []evalOpt{onNode("n1"), withClasses(map[string]bool{"c1": true})}, "c1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, enq, _ := newTestTracker(t)
			ev := mkEval(tc.opts...)
			tr.Block(ev)
			tr.Unblock(tc.class, 100)

			got := enq.enqueuedIDs(t)
			if tc.unblocked {
				if !reflect.DeepEqual(got, []string{ev.ID}) {
					t.Fatalf("enqueued %v, want [%s]", got, ev.ID)
				}
				if len(trackedIDs(t, tr)) != 0 {
					t.Fatal("unblocked eval still tracked")
				}
				return
			}
			if len(got) != 0 {
				t.Fatalf("enqueued %v, want nothing", got)
			}
			if !reflect.DeepEqual(trackedIDs(t, tr), []string{ev.ID}) {
				t.Fatal("eval no longer tracked")
			}
		})
	}
}

func TestBlockedEvals_UnblockReleasesInOneCall(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	a := mkEval(withClasses(map[string]bool{"c1": true}))
	b := mkEval(withClasses(map[string]bool{"c2": true}))     // c1 unknown
	c := mkEval(escaped())                                    // any class
	d := mkEval(withClasses(map[string]bool{"c1": false}))    // stays
	e := mkEval(onNode("n1"), withClasses(map[string]bool{})) // per node: stays
	for _, ev := range []*structs.Evaluation{a, b, c, d, e} {
		tr.Block(ev)
	}
	tr.Unblock("c1", 10)
	if enq.numCalls() != 1 {
		t.Fatalf("EnqueueAll called %d times, want 1", enq.numCalls())
	}
	if got, want := enq.enqueuedIDs(t), ids([]*structs.Evaluation{a, b, c}); !reflect.DeepEqual(got, want) {
		t.Fatalf("enqueued %v, want %v", got, want)
	}
	if got, want := trackedIDs(t, tr), ids([]*structs.Evaluation{d, e}); !reflect.DeepEqual(got, want) {
		t.Fatalf("tracked %v, want %v", got, want)
	}
	// Nothing left for c1: no empty EnqueueAll call.
	tr.Unblock("c1", 11)
	if enq.numCalls() != 1 {
		t.Fatalf("empty unblock called EnqueueAll")
	}
}

// When every captured eval has seen the class, Unblock uses the eligible
// index instead of a scan; both paths must agree.
func TestBlockedEvals_UnblockIndexedPathMatchesScan(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	yes := mkEval(withClasses(map[string]bool{"c1": true, "c2": false}))
	no := mkEval(withClasses(map[string]bool{"c1": false, "c2": true}))
	tr.Block(yes)
	tr.Block(no)
	tr.Unblock("c1", 5)
	if got := enq.enqueuedIDs(t); !reflect.DeepEqual(got, []string{yes.ID}) {
		t.Fatalf("enqueued %v", got)
	}
	if st := tr.Stats(); st.EligibleByClass["c1"] != 0 || st.EligibleByClass["c2"] != 1 {
		t.Fatalf("class index not maintained: %+v", st.EligibleByClass)
	}
}

func TestBlockedEvals_UnblockNode(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	n1a := mkEval(onNode("n1"), job("sys-a"))
	n1b := mkEval(onNode("n1"), job("sys-b"))
	n2 := mkEval(onNode("n2"), job("sys-a"))
	wide := mkEval(withClasses(map[string]bool{}))
	for _, ev := range []*structs.Evaluation{n1a, n1b, n2, wide} {
		tr.Block(ev)
	}
	tr.UnblockNode("n1", 7)
	if enq.numCalls() != 1 {
		t.Fatalf("EnqueueAll called %d times, want 1", enq.numCalls())
	}
	if got, want := enq.enqueuedIDs(t), ids([]*structs.Evaluation{n1a, n1b}); !reflect.DeepEqual(got, want) {
		t.Fatalf("enqueued %v, want %v", got, want)
	}
	if got, want := trackedIDs(t, tr), ids([]*structs.Evaluation{n2, wide}); !reflect.DeepEqual(got, want) {
		t.Fatalf("tracked %v, want %v", got, want)
	}
}

func TestBlockedEvals_UnblockFailedOnlyMaxPlans(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	maxPlans := mkEval(trigger(structs.EvalTriggerMaxPlans), withClasses(map[string]bool{"c1": false}))
	maxPlansEsc := mkEval(trigger(structs.EvalTriggerMaxPlans), escaped())
	maxPlansNode := mkEval(trigger(structs.EvalTriggerMaxPlans), onNode("n1"))
	queued := mkEval(trigger(structs.EvalTriggerQueuedAllocs))
	for _, ev := range []*structs.Evaluation{maxPlans, maxPlansEsc, maxPlansNode, queued} {
		tr.Block(ev)
	}
	tr.UnblockFailed()
	if enq.numCalls() != 1 {
		t.Fatalf("EnqueueAll called %d times, want 1", enq.numCalls())
	}
	want := ids([]*structs.Evaluation{maxPlans, maxPlansEsc, maxPlansNode})
	if got := enq.enqueuedIDs(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("enqueued %v, want %v", got, want)
	}
	if got := trackedIDs(t, tr); !reflect.DeepEqual(got, []string{queued.ID}) {
		t.Fatalf("tracked %v", got)
	}
}

func TestBlockedEvals_ReblockTokenPassedThrough(t *testing.T) {
	cases := []struct {
		name    string
		release func(tr *Tracker)
		opts    []evalOpt
	}{
		{"class unblock", func(tr *Tracker) { tr.Unblock("c1", 50) }, []evalOpt{withClasses(map[string]bool{"c1": true})}},
		{"node unblock", func(tr *Tracker) { tr.UnblockNode("n1", 50) }, []evalOpt{onNode("n1")}},
		{"failed unblock", func(tr *Tracker) { tr.UnblockFailed() }, []evalOpt{trigger(structs.EvalTriggerMaxPlans)}},
		{"missed unblock at reblock", func(tr *Tracker) {}, []evalOpt{snapshot(10), withClasses(map[string]bool{"pre": true})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, enq, _ := newTestTracker(t)
			tr.Unblock("pre", 20) // only matters for the missed-unblock case
			ev := mkEval(tc.opts...)
			tr.Reblock(ev, "tok-1")
			tc.release(tr)
			if got := enq.enqueued(t); !reflect.DeepEqual(got, map[string]string{ev.ID: "tok-1"}) {
				t.Fatalf("enqueued %v, want %s with tok-1", got, ev.ID)
			}
		})
	}
}

// The FSM's Block and the worker's Reblock of the same eval may arrive in
// either order: one tracked copy, and the token is not lost.
func TestBlockedEvals_ReblockSameEvalKeepsTokenOnce(t *testing.T) {
	for _, order := range []string{"block-then-reblock", "reblock-then-block"} {
		t.Run(order, func(t *testing.T) {
			tr, enq, _ := newTestTracker(t)
			ev := mkEval(withClasses(map[string]bool{"c1": true}))
			if order == "block-then-reblock" {
				tr.Block(ev)
				tr.Reblock(ev, "tok")
			} else {
				tr.Reblock(ev, "tok")
				tr.Block(ev)
			}
			if len(takeDuplicates(tr)) != 0 {
				t.Fatal("an eval is not a duplicate of itself")
			}
			tr.Unblock("c1", 9)
			if got := enq.enqueued(t); !reflect.DeepEqual(got, map[string]string{ev.ID: "tok"}) {
				t.Fatalf("enqueued %v", got)
			}
		})
	}
}

// undecided is what lets Unblock skip the scan: exactly the captured evals
// that have not seen the class, whatever the others think of it.
func TestBlockedEvals_UndecidedCountsCapturedEvalsWithoutAnOpinion(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	tr.Block(mkEval(withClasses(map[string]bool{"c1": true, "c2": true})))
	tr.Block(mkEval(withClasses(map[string]bool{"c1": false})))
	tr.Block(mkEval(withClasses(map[string]bool{"c3": true})))
	tr.Block(mkEval(escaped(), withClasses(map[string]bool{"c1": true})))
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for class, want := range map[string]int{"c1": 1, "c2": 2, "c3": 2, "c4": 3} {
		if got := tr.set.undecided(class); got != want {
			t.Errorf("undecided(%s) = %d, want %d", class, got, want)
		}
	}
}

// Of two blocked evals from the same snapshot, the later-created one is
// newer; a later snapshot wins whatever the creation order.
func TestBlockedEvals_NewerComparesSnapshotThenCreation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   *structs.Evaluation
		aNewer bool
	}{
		{"later snapshot", mkEval(snapshot(5), created(1)), mkEval(snapshot(4), created(9)), true},
		{"earlier snapshot", mkEval(snapshot(4), created(9)), mkEval(snapshot(5), created(1)), false},
		{"same snapshot, created later", mkEval(snapshot(5), created(3)), mkEval(snapshot(5), created(2)), true},
		{"same snapshot, created earlier", mkEval(snapshot(5), created(2)), mkEval(snapshot(5), created(3)), false},
		{"same snapshot and creation", mkEval(snapshot(5), created(2)), mkEval(snapshot(5), created(2)), false},
	} {
		if got := newer(tc.a, tc.b); got != tc.aNewer {
			t.Errorf("%s: newer = %v, want %v", tc.name, got, tc.aNewer)
		}
	}
}
