package state

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// Each write of a batch hands the commit observer its own changes, as its
// own transaction would have, and only after the batch commits; readers
// see nothing of the batch until then, while its View sees every write so
// far.
func TestBatch_ChangesArePerWrite(t *testing.T) {
	s, err := NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		index uint64
		jobs  []string
	}
	var got []seen
	s.SetCommitObserver(func(index uint64, changes memdb.Changes) {
		w := seen{index: index}
		for _, c := range changes {
			if c.Table == TableJobs {
				w.jobs = append(w.jobs, c.After.(*structs.Job).ID)
			}
		}
		got = append(got, w)
	})
	b := s.BeginBatch()
	if err := s.UpsertJob(5, 1, mock.Job("web")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertJob(6, 1, mock.Job("api")); err != nil {
		t.Fatal(err)
	}
	if j, _ := b.View().JobByID(nil, "default", "web"); j == nil {
		t.Fatal("the batch's view misses its first write")
	}
	if j, _ := s.JobByID(nil, "default", "web"); j != nil {
		t.Fatal("a reader sees a write of a batch not yet committed")
	}
	if len(got) != 0 {
		t.Fatalf("observer ran before the commit: %v", got)
	}
	b.Commit()
	want := []seen{{5, []string{"web"}}, {6, []string{"api"}}}
	if len(got) != 2 || got[0].index != 5 || got[1].index != 6 ||
		len(got[0].jobs) != 1 || got[0].jobs[0] != "web" || len(got[1].jobs) != 1 || got[1].jobs[0] != "api" {
		t.Fatalf("observer got %v, want %v", got, want)
	}
	if j, _ := s.JobByID(nil, "default", "api"); j == nil || j.CreateIndex != 6 {
		t.Fatalf("after commit: %+v", j)
	}
	if s.Index(TableJobs) != 6 {
		t.Fatalf("jobs index %d, want 6", s.Index(TableJobs))
	}
}

// A failed write poisons the batch; Abort leaves the store as it was.
func TestBatch_FailedWritePoisonsAndAbortDrops(t *testing.T) {
	s, err := NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	b := s.BeginBatch()
	if err := s.UpsertJob(5, 1, mock.Job("web")); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateNodeStatus(6, "missing", structs.NodeStatusDown, 1, nil); err == nil {
		t.Fatal("status of a missing node written")
	}
	if b.Failed() == nil {
		t.Fatal("failed write did not poison the batch")
	}
	if err := s.UpsertJob(7, 1, mock.Job("api")); err == nil {
		t.Fatal("a poisoned batch took another write")
	}
	b.Abort()
	if j, _ := s.JobByID(nil, "default", "web"); j != nil {
		t.Fatal("an aborted batch's write is visible")
	}
	if err := s.UpsertJob(8, 1, mock.Job("api")); err != nil {
		t.Fatalf("write after abort: %v", err)
	}
}
