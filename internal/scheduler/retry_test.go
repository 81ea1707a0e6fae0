package scheduler

import (
	"errors"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// TestRetryMax checks the attempt loop: done stops it, an error is
// returned at once, and only attempts in a row without progress count
// toward the limit.
func TestRetryMax(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		// results of the attempts in order: done, err, progress after it
		done     []bool
		err      []error
		progress []bool
		limit    int
		calls    int
		wantErr  error
		maxed    bool
	}{
		{"done at once", []bool{true}, []error{nil}, []bool{false}, 3, 1, nil, false},
		{"error at once", []bool{false}, []error{boom}, []bool{false}, 3, 1, boom, false},
		{"no progress hits the limit", []bool{false, false, false}, []error{nil, nil, nil}, []bool{false, false, false}, 3, 3, nil, true},
		{"progress starts the count over", []bool{false, false, false, false, true}, []error{nil, nil, nil, nil, nil},
			[]bool{false, true, false, false, false}, 3, 5, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := retryMax(tc.limit, func() (bool, error) {
				calls++
				return tc.done[calls-1], tc.err[calls-1]
			}, func() bool { return tc.progress[calls-1] })
			var maxErr *maxAttemptsError
			errOK := err == nil
			switch {
			case tc.maxed:
				errOK = errors.As(err, &maxErr) && maxErr.limit == tc.limit
			case tc.wantErr != nil:
				errOK = errors.Is(err, tc.wantErr)
			}
			if calls != tc.calls || !errOK {
				t.Fatalf("%d calls, err %v; want %d calls, maxed %v, err %v", calls, err, tc.calls, tc.maxed, tc.wantErr)
			}
		})
	}
}

func TestProgressMade(t *testing.T) {
	a := []*structs.Allocation{{ID: "a"}}
	cases := []struct {
		name string
		r    *structs.PlanResult
		want bool
	}{
		{"no result", nil, false},
		{"nothing committed", &structs.PlanResult{RefreshIndex: 9}, false},
		{"stops", &structs.PlanResult{NodeUpdate: map[string][]*structs.Allocation{"n": a}}, true},
		{"placements", &structs.PlanResult{NodeAllocation: map[string][]*structs.Allocation{"n": a}}, true},
		{"deployment", &structs.PlanResult{Deployment: &structs.Deployment{ID: "d"}}, true},
		{"deployment updates", &structs.PlanResult{DeploymentUpdates: []*structs.DeploymentStatusUpdate{{DeploymentID: "d"}}}, true},
	}
	for _, tc := range cases {
		if got := progressMade(tc.r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNextTracker checks that a replacement's history is the failed
// alloc's plus this reschedule, capped at maxRescheduleEvents (oldest
// dropped), and that the failed alloc's own history is not changed.
func TestNextTracker(t *testing.T) {
	prev := &structs.Allocation{ID: "prev", NodeID: "n1", RescheduleTracker: &structs.RescheduleTracker{}}
	for i := range maxRescheduleEvents {
		prev.RescheduleTracker.Events = append(prev.RescheduleTracker.Events, &structs.RescheduleEvent{PrevAllocID: string(rune('a' + i))})
	}
	tr := nextTracker(prev, t0, time.Minute)
	if len(tr.Events) != maxRescheduleEvents {
		t.Fatalf("%d events, want %d", len(tr.Events), maxRescheduleEvents)
	}
	if tr.Events[0].PrevAllocID != "b" {
		t.Fatalf("oldest kept %q, want b", tr.Events[0].PrevAllocID)
	}
	last := tr.Events[len(tr.Events)-1]
	if last.PrevAllocID != "prev" || last.PrevNodeID != "n1" || last.Delay != time.Minute || last.RescheduleTime != t0.UnixNano() {
		t.Fatalf("new event %+v", last)
	}
	if len(prev.RescheduleTracker.Events) != maxRescheduleEvents || prev.RescheduleTracker.Events[0].PrevAllocID != "a" {
		t.Fatal("the failed alloc's tracker was changed")
	}
	if first := nextTracker(&structs.Allocation{ID: "x"}, t0, 0); len(first.Events) != 1 || first.Events[0].PrevAllocID != "x" {
		t.Fatalf("first reschedule %+v", first)
	}
}
