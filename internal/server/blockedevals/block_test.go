package blockedevals

import (
	"reflect"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
)

func TestBlockedEvals_DuplicateBlockedEvalCanceled(t *testing.T) {
	cases := []struct {
		name           string
		first, second  []evalOpt
		keepSecond     bool
		wantDuplicates int
	}{
		{"newer snapshot replaces older", []evalOpt{snapshot(10), created(11)}, []evalOpt{snapshot(20), created(21)}, true, 1},
		{"older snapshot arriving late is the duplicate", []evalOpt{snapshot(20), created(21)}, []evalOpt{snapshot(10), created(11)}, false, 1},
		{"same snapshot, later create wins", []evalOpt{snapshot(10), created(15)}, []evalOpt{snapshot(10), created(12)}, false, 1},
		{"full tie: latest report wins", []evalOpt{snapshot(10), created(12)}, []evalOpt{snapshot(10), created(12)}, true, 1},
		{"escaped and captured are still one per job", []evalOpt{escaped(), snapshot(1)}, []evalOpt{snapshot(2)}, true, 1},
		{"per-node evals on different nodes coexist", []evalOpt{onNode("n1")}, []evalOpt{onNode("n2")}, true, 0},
		{"per-node evals on the same node dedupe", []evalOpt{onNode("n1"), snapshot(5)}, []evalOpt{onNode("n1"), snapshot(6)}, true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, _ := newTestTracker(t)
			first := mkEval(append(tc.first, job("web"))...)
			second := mkEval(append(tc.second, job("web"))...)
			tr.Block(first)
			tr.Block(second)

			dups := takeDuplicates(tr)
			if len(dups) != tc.wantDuplicates {
				t.Fatalf("duplicates %v, want %d", ids(dups), tc.wantDuplicates)
			}
			if tc.wantDuplicates == 0 {
				if got := trackedIDs(t, tr); len(got) != 2 {
					t.Fatalf("tracked %v, want both", got)
				}
				return
			}
			keep, drop := first, second
			if tc.keepSecond {
				keep, drop = second, first
			}
			if dups[0] != drop {
				t.Fatalf("duplicate is %s, want %s", dups[0].ID, drop.ID)
			}
			if got := trackedIDs(t, tr); !reflect.DeepEqual(got, []string{keep.ID}) {
				t.Fatalf("tracked %v, want [%s]", got, keep.ID)
			}
			if len(takeDuplicates(tr)) != 0 {
				t.Fatal("the take did not clear")
			}
		})
	}
}

func TestBlockedEvals_UnblockBetweenSnapshotAndBlock_NotLost(t *testing.T) {
	type change struct {
		node  bool // UnblockNode instead of Unblock
		key   string
		index uint64
	}
	cases := []struct {
		name     string
		changes  []change
		opts     []evalOpt
		released bool
	}{
		{"eligible class changed after snapshot", []change{{key: "c1", index: 11}}, []evalOpt{withClasses(map[string]bool{"c1": true})}, true},
		{"unknown class changed after snapshot", []change{{key: "new", index: 11}}, []evalOpt{withClasses(map[string]bool{"c1": false})}, true},
		{"ineligible class changed after snapshot", []change{{key: "c1", index: 11}}, []evalOpt{withClasses(map[string]bool{"c1": false})}, false},
		{"change at the snapshot index was seen", []change{{key: "c1", index: 10}}, []evalOpt{withClasses(map[string]bool{"c1": true})}, false},
		{"change before the snapshot was seen", []change{{key: "c1", index: 3}}, []evalOpt{withClasses(map[string]bool{"c1": true})}, false},
		{"escaped: any class after snapshot", []change{{key: "c1", index: 11}}, []evalOpt{escaped(), withClasses(map[string]bool{"c1": false})}, true},
		{"snapshot 0 is treated as fresh", []change{{key: "c1", index: 11}}, []evalOpt{snapshot(0), withClasses(map[string]bool{"c1": true})}, false},
		{"own node changed after snapshot", []change{{node: true, key: "n1", index: 11}}, []evalOpt{onNode("n1")}, true},
		{"own node changed at the snapshot index was seen", []change{{node: true, key: "n1", index: 10}}, []evalOpt{onNode("n1")}, false},
		{"other node changed after snapshot", []change{{node: true, key: "n2", index: 11}}, []evalOpt{onNode("n1")}, false},
		{"class change does not release per-node eval", []change{{key: "c1", index: 11}}, []evalOpt{onNode("n1")}, false},
		{"later record of an index keeps the max", []change{{key: "c1", index: 12}, {key: "c1", index: 9}}, []evalOpt{withClasses(map[string]bool{"c1": true})}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, enq, _ := newTestTracker(t)
			ev := mkEval(append([]evalOpt{snapshot(10)}, tc.opts...)...)
			// The unblocks happen while the eval is in the scheduler: they
			// find nothing to release.
			for _, c := range tc.changes {
				if c.node {
					tr.UnblockNode(c.key, c.index)
				} else {
					tr.Unblock(c.key, c.index)
				}
			}
			tr.Block(ev)
			enqueued := enq.enqueuedIDs(t)
			tracked := trackedIDs(t, tr)
			if tc.released {
				if !reflect.DeepEqual(enqueued, []string{ev.ID}) || len(tracked) != 0 {
					t.Fatalf("enqueued %v tracked %v, want released", enqueued, tracked)
				}
				return
			}
			if len(enqueued) != 0 || !reflect.DeepEqual(tracked, []string{ev.ID}) {
				t.Fatalf("enqueued %v tracked %v, want tracked", enqueued, tracked)
			}
		})
	}
}

// A newer eval released at Block by a missed unblock still displaces the
// older blocked eval of its job into the duplicates.
func TestBlockedEvals_MissedUnblockStillDedupes(t *testing.T) {
	tr, enq, _ := newTestTracker(t)
	old := mkEval(job("web"), snapshot(5), withClasses(map[string]bool{"c2": false}))
	tr.Block(old)
	tr.Unblock("c2", 12)
	fresh := mkEval(job("web"), snapshot(10), withClasses(map[string]bool{"c2": true}))
	tr.Block(fresh)
	if got := enq.enqueuedIDs(t); !reflect.DeepEqual(got, []string{fresh.ID}) {
		t.Fatalf("enqueued %v", got)
	}
	if got := ids(takeDuplicates(tr)); !reflect.DeepEqual(got, []string{old.ID}) {
		t.Fatalf("duplicates %v", got)
	}
	if got := trackedIDs(t, tr); len(got) != 0 {
		t.Fatalf("tracked %v", got)
	}
}

func TestBlockedEvals_UnblockIndexesPruned(t *testing.T) {
	tr, enq, clk := newTestTracker(t)
	tr.Unblock("c1", 20)
	tr.UnblockNode("n1", 20)
	// One prune runs inside the threshold and keeps the records.
	clk.Advance(PruneInterval)
	if !hasIndexRecords(tr) {
		t.Fatal("records pruned before the threshold")
	}
	clk.Advance(PruneThreshold)
	if hasIndexRecords(tr) {
		t.Fatal("records older than the threshold survived")
	}
	// With the record gone the old-snapshot eval is tracked, not released.
	tr.Block(mkEval(snapshot(10), withClasses(map[string]bool{"c1": true})))
	if enq.numCalls() != 0 {
		t.Fatal("released from a pruned record")
	}
}

func TestBlockedEvals_PruneTimerFollowsEnable(t *testing.T) {
	enq := &fakeEnqueuer{}
	clk := clock.NewManual(time.Unix(0, 0))
	tr := New(enq, clk)
	if clk.Pending() != 0 {
		t.Fatal("disabled tracker armed a timer")
	}
	tr.SetEnabled(true)
	tr.SetEnabled(true) // no-op: still one timer
	if clk.Pending() != 1 {
		t.Fatalf("pending timers %d, want 1", clk.Pending())
	}
	clk.Advance(3 * PruneInterval)
	if clk.Pending() != 1 {
		t.Fatalf("prune did not re-arm exactly once: %d", clk.Pending())
	}
	tr.SetEnabled(false)
	if clk.Pending() != 0 {
		t.Fatalf("disable left %d timers", clk.Pending())
	}
}

func hasIndexRecords(tr *Tracker) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.classIndexes)+len(tr.nodeIndexes) > 0
}
