package state

import (
	"fmt"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// fired reports whether any channel of ws is closed. Commits close the
// channels of what they changed before returning, so this is exact.
func fired(ws memdb.WatchSet) bool {
	for ch := range ws {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

// TestWatch_JobWriteWakesOnlyItsJob: blocking queries on different jobs
// (GET /v1/job/:id?index=N reads JobByID) watch only their job, so a write
// to one job (a new version, a status change through its evals and allocs)
// wakes that job's waiters and no other.
func TestWatch_JobWriteWakesOnlyItsJob(t *testing.T) {
	s := newStore(t)
	const jobs = 200
	for i := range jobs {
		must(t, s.UpsertJob(uint64(10+i), 0, mockJob(fmt.Sprintf("job-%03d", i))))
	}
	watch := func() []memdb.WatchSet {
		sets := make([]memdb.WatchSet, jobs)
		for i := range jobs {
			sets[i] = memdb.NewWatchSet()
			sets[i].Add(s.AbandonCh())
			j, err := s.JobByID(sets[i], structs.DefaultNamespace, fmt.Sprintf("job-%03d", i))
			must(t, err)
			if j == nil {
				t.Fatalf("job-%03d missing", i)
			}
		}
		return sets
	}
	check := func(what string, sets []memdb.WatchSet, want int) {
		t.Helper()
		for i, ws := range sets {
			if got := fired(ws); got != (i == want) {
				t.Fatalf("%s: waiter of job-%03d fired=%v", what, i, got)
			}
		}
	}

	sets := watch()
	j := mockJob("job-007")
	j.Meta = map[string]string{"v": "2"}
	must(t, s.UpsertJob(1000, 0, j))
	check("new version of job-007", sets, 7)

	sets = watch()
	stored, _ := s.JobByID(nil, structs.DefaultNamespace, "job-042")
	must(t, s.UpsertEvals(1001, []*structs.Evaluation{mockEval("e-42", "job-042")}))
	must(t, s.UpsertAllocs(1002, []*structs.Allocation{mockAlloc("a-42", stored, "n1")}))
	check("eval and alloc of job-042", sets, 42)

	sets = watch()
	must(t, s.UpsertJob(1003, 0, mockJob("job-new")))
	check("a new job", sets, -1)
}
