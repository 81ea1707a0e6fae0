package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestJobStatus(t *testing.T) {
	type setup func(t *testing.T, s *StateStore, job *structs.Job)
	withEval := func(status string) setup {
		return func(t *testing.T, s *StateStore, job *structs.Job) {
			e := mockEval("e1", job.ID)
			e.Status = status
			must(t, s.UpsertEvals(20, []*structs.Evaluation{e}))
		}
	}
	withAlloc := func(desired, client string) setup {
		return func(t *testing.T, s *StateStore, job *structs.Job) {
			stored, _ := s.JobByID(nil, job.Namespace, job.ID)
			a := mockAlloc("a1", stored, "n1")
			a.DesiredStatus, a.ClientStatus = desired, client
			must(t, s.UpsertAllocs(21, []*structs.Allocation{a}))
		}
	}
	tests := []struct {
		name  string
		job   func(*structs.Job)
		setup []setup
		want  string
	}{
		{"new job, nothing yet", nil, nil, structs.JobStatusPending},
		{"stopped", func(j *structs.Job) { j.Stop = true }, nil, structs.JobStatusDead},
		{"stopped wins over running alloc", func(j *structs.Job) { j.Stop = true },
			[]setup{withAlloc("run", "running")}, structs.JobStatusDead},
		{"periodic parent", func(j *structs.Job) { j.Periodic = &structs.PeriodicConfig{Enabled: true} }, nil, structs.JobStatusRunning},
		{"parameterized parent", func(j *structs.Job) { j.ParameterizedJob = &structs.ParameterizedJobConfig{} }, nil, structs.JobStatusRunning},
		{"pending eval", nil, []setup{withEval(structs.EvalStatusPending)}, structs.JobStatusPending},
		{"blocked eval", nil, []setup{withEval(structs.EvalStatusBlocked)}, structs.JobStatusPending},
		{"complete eval only", nil, []setup{withEval(structs.EvalStatusComplete)}, structs.JobStatusDead},
		{"running alloc", nil, []setup{withEval(structs.EvalStatusComplete), withAlloc("run", "running")}, structs.JobStatusRunning},
		{"running alloc beats pending eval", nil, []setup{withEval(structs.EvalStatusPending), withAlloc("run", "pending")}, structs.JobStatusRunning},
		{"terminal alloc", nil, []setup{withEval(structs.EvalStatusComplete), withAlloc("run", "complete")}, structs.JobStatusDead},
		{"stopped alloc", nil, []setup{withAlloc("stop", "running")}, structs.JobStatusDead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			job := mockJob("web")
			if tt.job != nil {
				tt.job(job)
			}
			must(t, s.UpsertJob(10, 0, job))
			for _, st := range tt.setup {
				st(t, s, job)
			}
			got, _ := s.JobByID(nil, "default", "web")
			if got.Status != tt.want {
				t.Fatalf("status = %s, want %s", got.Status, tt.want)
			}
		})
	}
}

func TestJobStatus_Transitions(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertJob(10, 0, mockJob("web")))
	status := func() (string, uint64) {
		j, _ := s.JobByID(nil, "default", "web")
		return j.Status, j.ModifyIndex
	}
	steps := []struct {
		name       string
		write      func() error
		wantStatus string
		wantModIdx uint64 // moves only when the status changes
	}{
		{"register eval", func() error {
			return s.UpsertEvals(11, []*structs.Evaluation{mockEval("e1", "web")})
		}, structs.JobStatusPending, 10},
		{"alloc placed", func() error {
			j, _ := s.JobByID(nil, "default", "web")
			return s.UpsertAllocs(12, []*structs.Allocation{mockAlloc("a1", j, "n1")})
		}, structs.JobStatusRunning, 12},
		{"eval complete", func() error {
			e := mockEval("e1", "web")
			e.Status = structs.EvalStatusComplete
			return s.UpsertEvals(13, []*structs.Evaluation{e})
		}, structs.JobStatusRunning, 12},
		{"alloc fails on client", func() error {
			return s.UpdateAllocsFromClient(14, []*structs.Allocation{{ID: "a1", ClientStatus: structs.AllocClientStatusFailed}})
		}, structs.JobStatusDead, 14},
		{"GC removes evals and allocs", func() error {
			return s.DeleteEvals(15, []string{"e1"}, []string{"a1"})
		}, structs.JobStatusDead, 14},
	}
	for _, st := range steps {
		must(t, st.write())
		if got, idx := status(); got != st.wantStatus || idx != st.wantModIdx {
			t.Fatalf("%s: status=%s modify=%d, want %s/%d", st.name, got, idx, st.wantStatus, st.wantModIdx)
		}
	}
	wantIndex(t, s, TableJobs, 14)
}

func TestJobStatus_IgnoresAllocsOfPurgedIncarnation(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertJob(10, 0, mockJob("web")))
	old, _ := s.JobByID(nil, "default", "web")
	must(t, s.UpsertAllocs(11, []*structs.Allocation{mockAlloc("a1", old, "n1")}))
	must(t, s.DeleteJob(12, "default", "web"))
	must(t, s.UpsertJob(13, 0, mockJob("web")))
	if j, _ := s.JobByID(nil, "default", "web"); j.Status != structs.JobStatusPending {
		t.Fatalf("re-created job status = %s, want pending", j.Status)
	}
}

// A live alloc stored and then stopped by the same write does not make its
// job running (refreshJobStatus takes a live alloc the write stored as the
// answer only while it is still stored).
func TestJobStatus_AllocStoppedLaterInTheSameWrite(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	live := mockAlloc("a1", job, "n1")
	stop := mockAlloc("a1", job, "n1")
	stop.DesiredStatus = structs.AllocDesiredStatusStop
	must(t, s.UpsertAllocs(10, []*structs.Allocation{live, stop}))
	got, _ := s.JobByID(nil, "default", "web")
	if got.Status != structs.JobStatusDead {
		t.Fatalf("status %s, want dead: its only alloc was stopped", got.Status)
	}
	must(t, s.UpsertAllocs(11, []*structs.Allocation{mockAlloc("a2", job, "n1")}))
	if got, _ := s.JobByID(nil, "default", "web"); got.Status != structs.JobStatusRunning {
		t.Fatalf("status %s, want running", got.Status)
	}
}
