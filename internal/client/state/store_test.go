package state

import (
	"encoding/json"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	alloc := &structs.Allocation{ID: "a1", Job: &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g",
		Tasks: []*structs.Task{{Name: "t", Config: map[string]any{"args": []any{"x"}, "n": int64(3)}}}}}}}
	healthy := true
	must(t, s.PutAlloc(alloc))
	must(t, s.PutDeploymentStatus("a1", &structs.AllocDeploymentStatus{Healthy: &healthy}))
	must(t, s.PutTaskState("a1", "t", &structs.TaskState{State: structs.TaskStateRunning, Restarts: 2}))
	must(t, s.PutTaskHandle("a1", "t", &drivers.TaskHandle{Driver: "mock", TaskID: "a1/t", State: json.RawMessage(`{"x":1}`)}))
	must(t, s.PutAlloc(&structs.Allocation{ID: "a2"}))
	must(t, s.DeleteAlloc("a2"))
	must(t, s.Close())

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs, bad, err := s.LoadAll()
	if err != nil || len(bad) != 0 || len(recs) != 1 {
		t.Fatalf("load = %v %v %d", err, bad, len(recs))
	}
	r := recs[0]
	cfg := r.Alloc.Job.TaskGroups[0].Tasks[0].Config
	if cfg["args"].([]any)[0] != "x" || r.Deployment == nil || !*r.Deployment.Healthy {
		t.Fatalf("alloc = %+v %+v", cfg, r.Deployment)
	}
	tr := r.Tasks["t"]
	if tr.State.Restarts != 2 || tr.Handle.TaskID != "a1/t" || string(tr.Handle.State) != `{"x":1}` {
		t.Fatalf("task = %+v %+v", tr.State, tr.Handle)
	}
	must(t, s.PutTaskHandle("a1", "t", nil))
	recs, _, _ = s.LoadAll()
	if recs[0].Tasks["t"].Handle != nil {
		t.Fatal("handle not cleared")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
