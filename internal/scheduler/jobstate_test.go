package scheduler

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// splitIncarnations keeps the current incarnation's allocs (terminal ones
// too: they count for batch completion and reschedules), sets apart the
// live allocs of an earlier incarnation to be stopped, and drops its
// finished ones; a purged job owns every alloc left under its ID.
func TestSplitIncarnations(t *testing.T) {
	job := func(createIndex uint64) *structs.Job { return &structs.Job{ID: "web", CreateIndex: createIndex} }
	alloc := func(id string, createIndex uint64, client string) *structs.Allocation {
		a := &structs.Allocation{ID: id, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: client}
		if createIndex != 0 {
			a.Job = job(createIndex)
		}
		return a
	}
	allocs := []*structs.Allocation{
		alloc("old-running", 5, structs.AllocClientStatusRunning),
		alloc("old-complete", 5, structs.AllocClientStatusComplete),
		alloc("new-running", 9, structs.AllocClientStatusRunning),
		alloc("new-failed", 9, structs.AllocClientStatusFailed),
		alloc("no-job", 0, structs.AllocClientStatusPending),
	}
	ids := func(as []*structs.Allocation) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		job        *structs.Job
		cur, older []string
	}{
		{"purged job owns everything", nil, ids(allocs), nil},
		{"re-registered", job(9), []string{"new-running", "new-failed", "no-job"}, []string{"old-running"}},
		{"any other incarnation is stopped", job(5), []string{"old-running", "old-complete", "no-job"}, []string{"new-running"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur, older := splitIncarnations(tc.job, allocs)
			if got := ids(cur); !slices.Equal(got, tc.cur) {
				t.Errorf("current: %v, want %v", got, tc.cur)
			}
			if got := ids(older); !slices.Equal(got, tc.older) {
				t.Errorf("older: %v, want %v", got, tc.older)
			}
		})
	}
}
