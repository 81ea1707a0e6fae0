package blockedevals

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestBlockedEvals_DisableFlushes(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	tr.Block(mkEval(job("web")))
	tr.Block(mkEval(job("web"))) // first becomes a duplicate
	tr.Unblock("cx", 100)        // would release at Block, were it kept
	tr.Block(mkEval(job("api"), snapshot(1), withClasses(map[string]bool{"cx": false})))
	calls := enq.numCalls()

	tr.SetEnabled(false)
	if tr.Enabled() {
		t.Fatal("still enabled")
	}
	if st := tr.Stats(); st.TotalBlocked != 0 || st.TotalDuplicates != 0 {
		t.Fatalf("state survived disable: %+v", st)
	}
	if _, ok := tr.HasBlocked("default", "api"); ok {
		t.Fatal("HasBlocked after disable")
	}

	// Disabled: calls are ignored.
	tr.Block(mkEval(job("db")))
	tr.Unblock("any", 200)
	tr.UnblockFailed()
	if st := tr.Stats(); st.TotalBlocked != 0 {
		t.Fatalf("disabled tracker tracked: %+v", st)
	}

	// Re-enabled: empty, and old index records are gone too.
	tr.SetEnabled(true)
	ev := mkEval(snapshot(50), withClasses(map[string]bool{"cx": true}))
	tr.Block(ev)
	if enq.numCalls() != calls {
		t.Fatal("released by an index recorded before the flush")
	}
	if got := trackedIDs(t, tr); !reflect.DeepEqual(got, []string{ev.ID}) {
		t.Fatalf("tracked %v", got)
	}
}

func TestBlockedEvals_Untrack(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	wide := mkEval(job("web"))
	n1 := mkEval(job("web"), onNode("n1"))
	other := mkEval(job("api"))
	otherNS := mkEval(job("web"))
	otherNS.Namespace = "prod"
	for _, ev := range []*structs.Evaluation{wide, n1, other, otherNS} {
		tr.Block(ev)
	}
	tr.Untrack("default", "web")
	if got, want := trackedIDs(t, tr), ids([]*structs.Evaluation{other, otherNS}); !reflect.DeepEqual(got, want) {
		t.Fatalf("tracked %v, want %v", got, want)
	}
	if enq.numCalls() != 0 || len(takeDuplicates(tr)) != 0 {
		t.Fatal("Untrack must neither enqueue nor report duplicates")
	}
	tr.Untrack("default", "missing") // no-op
}

func TestBlockedEvals_HasBlocked(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	if _, ok := tr.HasBlocked("default", "web"); ok {
		t.Fatal("empty tracker has a blocked eval")
	}
	n2 := mkEval(job("web"), onNode("n2"))
	n1 := mkEval(job("web"), onNode("n1"))
	tr.Block(n2)
	tr.Block(n1)
	if got, ok := tr.HasBlocked("default", "web"); !ok || got != n1 {
		t.Fatalf("per-node only: got %v, want lowest node's eval", got)
	}
	wide := mkEval(job("web"))
	tr.Block(wide)
	if got, ok := tr.HasBlocked("default", "web"); !ok || got != wide {
		t.Fatal("job-wide eval not preferred")
	}
	if _, ok := tr.HasBlocked("prod", "web"); ok {
		t.Fatal("namespaces not separated")
	}
}

func TestBlockedEvals_Stats(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	tr.Block(mkEval(withClasses(map[string]bool{"c1": true, "c2": false})))
	tr.Block(mkEval(withClasses(map[string]bool{"c1": true})))
	tr.Block(mkEval(escaped()))
	tr.Block(mkEval(onNode("n1")))
	tr.Block(mkEval(job("dup")))
	tr.Block(mkEval(job("dup")))
	want := Stats{
		TotalBlocked: 5, TotalEscaped: 1, TotalCaptured: 3, TotalPerNode: 1,
		TotalDuplicates: 1, EligibleByClass: map[string]int{"c1": 2},
	}
	if got := tr.Stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	tr.Unblock("c1", 1)
	want = Stats{TotalBlocked: 1, TotalPerNode: 1, TotalDuplicates: 1, EligibleByClass: map[string]int{}}
	if got := tr.Stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after unblock %+v, want %+v", got, want)
	}
}

// Untrack hands back the job's evals (job-wide and per node) in ID order,
// so the cancel write the leader makes of them is the same every run.
func TestBlockedEvals_UntrackReturnsIDOrder(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	evals := []*structs.Evaluation{mkEval(job("web")), mkEval(job("web"), onNode("n1")), mkEval(job("web"), onNode("n2"))}
	for _, ev := range evals {
		tr.Block(ev)
	}
	got := tr.Untrack("default", "web")
	want := ids(evals) // sorted
	var gotIDs []string
	for _, e := range got {
		gotIDs = append(gotIDs, e.ID)
	}
	if !reflect.DeepEqual(gotIDs, want) {
		t.Fatalf("Untrack returned %v, want ID order %v", gotIDs, want)
	}
}

// The per-class indexes that let Unblock skip the scan follow the set
// exactly: a class some captured eval found ineligible is counted, an
// eligible one indexes the eval, and removing the evals leaves no entry
// behind (a stale count would make the fast path skip evals it must
// release).
func TestBlockedEvals_ClassIndexesFollowTheSet(t *testing.T) {
	tr, _, _ := newTestTracker(t)
	a := mkEval(withClasses(map[string]bool{"c1": false, "c2": true}))
	b := mkEval(withClasses(map[string]bool{"c1": false}))
	tr.Block(a)
	tr.Block(b)
	check := func(when string, ineligible map[string]int, eligibleC2 []string) {
		t.Helper()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		gotIneligible := map[string]int{}
		for class, n := range tr.set.ineligibleCount {
			gotIneligible[class] = n
		}
		var gotC2 []string
		for id := range tr.set.eligibleBy["c2"] {
			gotC2 = append(gotC2, id)
		}
		if !reflect.DeepEqual(gotIneligible, ineligible) || !reflect.DeepEqual(gotC2, eligibleC2) {
			t.Fatalf("%s: ineligible %v eligible[c2] %v, want %v %v", when, gotIneligible, gotC2, ineligible, eligibleC2)
		}
	}
	check("both blocked", map[string]int{"c1": 2}, []string{a.ID})
	tr.Untrack("default", a.JobID)
	check("a untracked", map[string]int{"c1": 1}, nil)
	tr.Untrack("default", b.JobID)
	check("both untracked", map[string]int{}, nil)
}
