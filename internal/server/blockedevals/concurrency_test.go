package blockedevals

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// Many goroutines block and unblock at once while another drains
// duplicates. Afterwards every eval ever blocked must be in exactly one
// place: still tracked, enqueued (once, with its token), or a duplicate.
func TestBlockedEvals_ConcurrentNothingLostNothingTwice(t *testing.T) {
	const blockers, perBlocker, unblockers, unblocksEach = 8, 300, 4, 300
	tr, enq, _ := newTestTracker(t)
	var raftIndex atomic.Uint64
	classes := []string{"c0", "c1", "c2", "c3", "c4"}

	var allMu sync.Mutex
	all := map[string]string{} // eval ID -> token it was blocked with

	ctx, stopDrain := context.WithCancel(context.Background())
	drained := make(chan []*structs.Evaluation)
	go func() {
		var out []*structs.Evaluation
		for ctx.Err() == nil {
			out = append(out, tr.Duplicates(ctx)...)
		}
		drained <- out
	}()

	var wg sync.WaitGroup
	for g := range blockers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range perBlocker {
				ev := randomEval(rng, fmt.Sprintf("g%d-%d", g, i), classes, raftIndex.Load())
				token := ""
				if rng.IntN(3) == 0 {
					token = "tok-" + ev.ID
				}
				allMu.Lock()
				all[ev.ID] = token
				allMu.Unlock()
				tr.Reblock(ev, token) // Reblock with "" is Block
			}
		}()
	}
	for g := range unblockers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range unblocksEach {
				switch idx := raftIndex.Add(1); rng.IntN(10) {
				case 0:
					tr.UnblockNode(fmt.Sprintf("n%d", rng.IntN(3)), idx)
				case 1:
					tr.UnblockFailed()
				default:
					tr.Unblock(classes[rng.IntN(len(classes))], idx)
				}
			}
		}()
	}
	wg.Wait()
	stopDrain()
	dups := append(<-drained, takeDuplicates(tr)...)

	where := map[string]string{}
	place := func(id, loc string) {
		if prev, ok := where[id]; ok {
			t.Fatalf("eval %s is both %s and %s", id, prev, loc)
		}
		where[id] = loc
	}
	for _, id := range trackedIDs(t, tr) {
		place(id, "tracked")
	}
	for id, tok := range enq.enqueued(t) {
		place(id, "enqueued")
		if tok != all[id] {
			t.Fatalf("eval %s enqueued with token %q, blocked with %q", id, tok, all[id])
		}
	}
	for _, ev := range dups {
		place(ev.ID, "duplicate")
	}
	for id := range all {
		if _, ok := where[id]; !ok {
			t.Fatalf("eval %s lost", id)
		}
	}
	if len(where) != len(all) {
		t.Fatalf("accounted for %d evals, blocked %d", len(where), len(all))
	}
	if st := tr.Stats(); st.TotalBlocked != len(trackedIDs(t, tr)) {
		t.Fatalf("stats %+v disagree with tracked set", st)
	}
}

// randomEval returns a blocked eval over a small pool of jobs (so
// duplicates happen) with a random mix of shapes.
func randomEval(rng *rand.Rand, id string, classes []string, snap uint64) *structs.Evaluation {
	ev := &structs.Evaluation{
		ID: id, Namespace: "default", JobID: fmt.Sprintf("job-%d", rng.IntN(20)),
		Status: structs.EvalStatusBlocked, TriggeredBy: structs.EvalTriggerQueuedAllocs,
		SnapshotIndex: snap, CreateIndex: snap + 1,
		ClassEligibility: map[string]bool{},
	}
	for _, c := range classes {
		if rng.IntN(2) == 0 {
			ev.ClassEligibility[c] = rng.IntN(2) == 0
		}
	}
	switch rng.IntN(10) {
	case 0:
		ev.EscapedComputedClass = true
	case 1:
		ev.NodeID = fmt.Sprintf("n%d", rng.IntN(3))
	case 2:
		ev.TriggeredBy = structs.EvalTriggerMaxPlans
	}
	return ev
}
