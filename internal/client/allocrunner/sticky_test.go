package allocrunner

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// stickyRunner is alloc a2 replacing a1 (whose tree holds data) with a
// sticky ephemeral_disk; prevDone is the previous alloc's Done.
func stickyRunner(t *testing.T, prevDone chan struct{}) (*Runner, string) {
	t.Helper()
	root := t.TempDir()
	prev := allocdir.New(root, "a1")
	for _, p := range []string{filepath.Join(prev.SharedDir, "data"), prev.TaskDir("web").LocalDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "kept"), []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := drivers.NewRegistry(map[string]drivers.Factory{mock.Name: mock.New}, nil, drivers.Env{Clock: clock.Real{}})
	if err != nil {
		t.Fatal(err)
	}
	tg := &structs.TaskGroup{Name: "g", Count: 1, EphemeralDisk: &structs.EphemeralDisk{Sticky: true},
		Tasks: []*structs.Task{{Name: "web", Driver: mock.Name, Config: map[string]any{}, KillTimeout: time.Second}}}
	a := &structs.Allocation{ID: "a2", Namespace: "default", JobID: "j", TaskGroup: "g", DesiredStatus: structs.AllocDesiredStatusRun,
		PreviousAllocation: "a1",
		Job:                &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeService, Namespace: "default", TaskGroups: []*structs.TaskGroup{tg}}}
	r := New(Config{Alloc: a, AllocDirRoot: root, Drivers: reg,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Node:     func() *structs.Node { return &structs.Node{ID: "n1"} },
		Previous: &PreviousAlloc{ID: "a1", Dir: prev, Done: prevDone}})
	return r, root
}

// The replacement waits for the previous alloc, then starts its tasks on
// the previous alloc's alloc/data and local/.
func TestSticky_TasksStartOnThePreviousData(t *testing.T) {
	prevDone := make(chan struct{})
	r, root := stickyRunner(t, prevDone)
	r.Run()
	defer func() { _ = r.Destroy() }()
	close(prevDone)
	testutil.WaitFor(t, 10*time.Second, "the task running", func() bool {
		return r.Tasks()[0].State().State == structs.TaskStateRunning
	})
	next := allocdir.New(root, "a2")
	for _, p := range []string{filepath.Join(next.SharedDir, "data", "kept"), filepath.Join(next.TaskDir("web").LocalDir, "kept")} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "v1" {
			t.Fatalf("%s: %q %v", p, b, err)
		}
	}
}

// A replacement stopped while it waits for a previous alloc that never
// ends is destroyed without waiting for it.
func TestSticky_StopEndsTheWait(t *testing.T) {
	r, _ := stickyRunner(t, make(chan struct{}))
	r.Run()
	done := make(chan error, 1)
	go func() { done <- r.Destroy() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Destroy waited for the previous alloc")
	}
}
