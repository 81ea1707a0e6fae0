package state

import (
	"errors"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestUpsertJob_New(t *testing.T) {
	s := newStore(t)
	job := mockJob("web")
	ws := memdb.NewWatchSet()
	if got, err := s.JobByID(ws, "default", "web"); err != nil || got != nil {
		t.Fatalf("JobByID before insert = %v, %v", got, err)
	}
	must(t, s.UpsertJob(10, 555, job))
	if !watchFired(ws) {
		t.Fatal("watch on absent job did not fire on insert")
	}
	got, err := s.JobByID(nil, "default", "web")
	must(t, err)
	if got == job {
		t.Fatal("store kept the caller's object instead of a copy")
	}
	if got.CreateIndex != 10 || got.ModifyIndex != 10 || got.JobModifyIndex != 10 || got.Version != 0 {
		t.Fatalf("indexes = %d/%d/%d v%d", got.CreateIndex, got.ModifyIndex, got.JobModifyIndex, got.Version)
	}
	if got.SubmitTime != 555 || got.Status != structs.JobStatusPending {
		t.Fatalf("submit=%d status=%s", got.SubmitTime, got.Status)
	}
	wantIndex(t, s, TableJobs, 10)
	wantIndex(t, s, TableJobVersion, 10)
	job.TaskGroups[0].Count = 99 // the caller's object is not the stored one
	if got.TaskGroups[0].Count == 99 {
		t.Fatal("stored job shares memory with the caller's")
	}
}

func TestUpsertJob_VersionBumpVsNoop(t *testing.T) {
	tests := []struct {
		name        string
		change      func(*structs.Job)
		wantVersion uint64
		wantJMI     uint64
	}{
		{"identical re-register", func(*structs.Job) {}, 0, 10},
		{"only maintained fields differ", func(j *structs.Job) {
			j.Status, j.Version, j.SubmitTime, j.ModifyIndex, j.Stable = "dead", 7, 1, 3, true
		}, 0, 10},
		{"count change", func(j *structs.Job) { j.TaskGroups[0].Count = 5 }, 1, 20},
		{"meta change", func(j *structs.Job) { j.Meta["x"] = "y" }, 1, 20},
		{"task config change", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["image"] = "redis" }, 1, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			must(t, s.UpsertJob(10, 1, mockJob("web")))
			j := mockJob("web")
			tt.change(j)
			must(t, s.UpsertJob(20, 2, j))
			got, _ := s.JobByID(nil, "default", "web")
			if got.Version != tt.wantVersion || got.JobModifyIndex != tt.wantJMI {
				t.Fatalf("version=%d jmi=%d, want %d/%d", got.Version, got.JobModifyIndex, tt.wantVersion, tt.wantJMI)
			}
			if got.CreateIndex != 10 || got.ModifyIndex != 20 || got.SubmitTime != 2 {
				t.Fatalf("create=%d modify=%d submit=%d", got.CreateIndex, got.ModifyIndex, got.SubmitTime)
			}
			versions, _ := s.JobVersionsByID(nil, "default", "web")
			if len(versions) != int(tt.wantVersion)+1 {
				t.Fatalf("%d versions stored", len(versions))
			}
		})
	}
}

func TestUpsertJob_VersionsCapped(t *testing.T) {
	s := newStore(t)
	for i := 0; i < 300; i++ { // past 255, to check the version key sorts numerically
		j := mockJob("web")
		j.TaskGroups[0].Count = i
		must(t, s.UpsertJob(uint64(100+i), 0, j))
	}
	versions, err := s.JobVersionsByID(nil, "default", "web")
	must(t, err)
	if len(versions) != JobTrackedVersions {
		t.Fatalf("%d versions kept, want %d", len(versions), JobTrackedVersions)
	}
	for i, v := range versions {
		if want := uint64(299 - i); v.Version != want {
			t.Fatalf("versions[%d] = v%d, want v%d (newest first)", i, v.Version, want)
		}
	}
	if old, _ := s.JobByIDAndVersion(nil, "default", "web", 293); old != nil {
		t.Fatal("version 293 should have been dropped")
	}
	v, _ := s.JobByIDAndVersion(nil, "default", "web", 295)
	if v == nil || v.TaskGroups[0].Count != 295 {
		t.Fatalf("JobByIDAndVersion(295) = %+v", v)
	}
}

func TestDeleteJob(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertJob(10, 0, mockJob("web")))
	j := mockJob("web")
	j.Priority = 70
	must(t, s.UpsertJob(11, 0, j))
	ws := memdb.NewWatchSet()
	s.JobByID(ws, "default", "web")
	must(t, s.DeleteJob(12, "default", "web"))
	if !watchFired(ws) {
		t.Fatal("watch did not fire on delete")
	}
	if got, _ := s.JobByID(nil, "default", "web"); got != nil {
		t.Fatal("job still present")
	}
	if vs, _ := s.JobVersionsByID(nil, "default", "web"); len(vs) != 0 {
		t.Fatalf("%d versions left", len(vs))
	}
	wantIndex(t, s, TableJobs, 12)
	wantIndex(t, s, TableJobVersion, 12)
	if err := s.DeleteJob(13, "default", "web"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	wantIndex(t, s, TableJobs, 12) // a failed write changes nothing
}

func TestJobReads(t *testing.T) {
	s := newStore(t)
	for i, key := range []struct{ ns, id string }{
		{"default", "web"}, {"default", "web-api"}, {"default", "db"}, {"prod", "web"}, {"default2", "web"},
	} {
		j := mockJob(key.id)
		j.Namespace = key.ns
		if key.id == "db" {
			j.Type = structs.JobTypeBatch
		}
		must(t, s.UpsertJob(uint64(10+i), 0, j))
	}
	ids := func(jobs []*structs.Job) (out []string) {
		for _, j := range jobs {
			out = append(out, j.Namespace+"/"+j.ID)
		}
		return out
	}
	tests := []struct {
		name string
		get  func() ([]*structs.Job, error)
		want []string
	}{
		{"prefix in namespace", func() ([]*structs.Job, error) { return s.JobsByIDPrefix(nil, "default", "web") }, []string{"default/web", "default/web-api"}},
		{"prefix all namespaces", func() ([]*structs.Job, error) { return s.JobsByIDPrefix(nil, "*", "we") },
			[]string{"default/web", "default/web-api", "default2/web", "prod/web"}},
		{"namespace is exact", func() ([]*structs.Job, error) { return s.Jobs(nil, "default") }, []string{"default/db", "default/web", "default/web-api"}},
		{"all", func() ([]*structs.Job, error) { return s.Jobs(nil, "*") },
			[]string{"default/db", "default/web", "default/web-api", "default2/web", "prod/web"}},
		{"by type", func() ([]*structs.Job, error) { return s.JobsByType(nil, structs.JobTypeBatch) }, []string{"default/db"}},
		{"by status", func() ([]*structs.Job, error) { return s.JobsByStatus(nil, structs.JobStatusRunning) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := tt.get()
			must(t, err)
			if got := ids(jobs); !equalStrings(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJobsWatchFiresOnNewJobInNamespace(t *testing.T) {
	s := newStore(t)
	// Watches are radix-tree nodes: on an empty table they are the root and
	// fire on any insert, so start with a job in the watched namespace.
	must(t, s.UpsertJob(4, 0, mockJob("a")))
	ws := memdb.NewWatchSet()
	_, err := s.Jobs(ws, "default")
	must(t, err)
	other := mockJob("x")
	other.Namespace = "prod"
	must(t, s.UpsertJob(5, 0, other))
	if watchFired(ws) {
		t.Fatal("watch on namespace default fired for a job in prod")
	}
	must(t, s.UpsertJob(6, 0, mockJob("y")))
	if !watchFired(ws) {
		t.Fatal("watch on namespace default did not fire")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// PeriodicJobs lists only enabled periodic parents, and its watch fires on
// their writes but not on writes of other jobs (the periodic dispatcher
// sleeps through a burst of ordinary registrations).
func TestPeriodicJobs_OnlyPeriodicParentsWakeTheWatch(t *testing.T) {
	s := newStore(t)
	periodic := mockJob("nightly")
	periodic.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: []string{"0 0 * * *"}, SpecType: structs.PeriodicSpecCron}
	disabled := mockJob("paused")
	disabled.Periodic = &structs.PeriodicConfig{Enabled: false, Specs: []string{"0 0 * * *"}, SpecType: structs.PeriodicSpecCron}
	must(t, s.UpsertJob(10, 1, periodic))
	must(t, s.UpsertJob(11, 1, disabled))

	ws := memdb.NewWatchSet()
	got, err := s.PeriodicJobs(ws)
	must(t, err)
	if len(got) != 1 || got[0].ID != "nightly" {
		t.Fatalf("PeriodicJobs = %v, want only nightly", jobIDs(got))
	}
	must(t, s.UpsertJob(12, 1, mockJob("web")))
	if watchFired(ws) {
		t.Fatal("a non-periodic job's write woke the periodic watch")
	}
	enabled := disabled.Copy()
	enabled.Periodic.Enabled = true
	must(t, s.UpsertJob(13, 1, enabled))
	if !watchFired(ws) {
		t.Fatal("enabling a periodic job did not wake the periodic watch")
	}
	got, err = s.PeriodicJobs(nil)
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("PeriodicJobs = %v, want nightly and paused", jobIDs(got))
	}
}

func jobIDs(jobs []*structs.Job) []string {
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	return ids
}
