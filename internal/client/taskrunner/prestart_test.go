package taskrunner

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/structs"
)

// recDriver is the mock driver recording the configs it was started with.
type recDriver struct {
	*mock.Driver
	mu      sync.Mutex
	started []*drivers.TaskConfig
}

func (d *recDriver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	d.mu.Lock()
	d.started = append(d.started, tc)
	d.mu.Unlock()
	return d.Driver.Start(ctx, tc)
}

func (d *recDriver) last() *drivers.TaskConfig {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.started) == 0 {
		return nil
	}
	return d.started[len(d.started)-1]
}

type oneDriver struct{ d drivers.Driver }

func (o oneDriver) Get(string) (drivers.Driver, error) { return o.d, nil }

// runResult is what a test task run left behind.
type runResult struct {
	state   *structs.TaskState
	started *drivers.TaskConfig // nil when the driver was never asked
	taskDir drivers.TaskDir
}

// runTask runs task (a batch task on the mock driver exiting at once
// unless its config says otherwise) through a task runner until it is dead.
// setup, when set, may prepare the task dir before the runner starts.
func runTask(t *testing.T, task *structs.Task, setup func(td drivers.TaskDir)) runResult {
	t.Helper()
	tr, rec, td := startTask(t, task, setup)
	return waitTask(t, tr, rec, td)
}

// startTask builds a runner for task and runs it in the background.
func startTask(t *testing.T, task *structs.Task, setup func(td drivers.TaskDir)) (*TaskRunner, *recDriver, drivers.TaskDir) {
	t.Helper()
	task.Name, task.Driver = "web", mock.Name
	if task.Config == nil {
		task.Config = map[string]any{"run_for": "1ms"}
	}
	task.LogConfig = &structs.LogConfig{Disabled: true}
	job := &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeBatch,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{task}}}}
	alloc := &structs.Allocation{ID: "alloc-1", Name: "j.g[0]", TaskGroup: "g", Job: job}
	ad := allocdir.New(t.TempDir(), alloc.ID)
	td := ad.TaskDir(task.Name)
	if setup != nil {
		if _, err := ad.BuildTask(task.Name); err != nil {
			t.Fatal(err)
		}
		setup(td)
	}
	node := &structs.Node{ID: "n1", Attributes: map[string]string{"kernel.name": "linux"}, Meta: map[string]string{"rack": "r1"}}
	rec := &recDriver{Driver: mock.NewWithClock(nil)}
	tr := New(Config{Alloc: alloc, Task: task, AllocDir: ad, Drivers: oneDriver{rec}, Region: "global",
		// Tests copy local sources from temp dirs; a task with meta
		// "deny-host-artifacts" gets the default policy instead.
		AllowHostArtifacts: task.Meta["deny-host-artifacts"] == "",
		Node:               func() *structs.Node { return node }, Logger: slog.New(slog.DiscardHandler)})
	go tr.Run()
	return tr, rec, td
}

func waitTask(t *testing.T, tr *TaskRunner, rec *recDriver, td drivers.TaskDir) runResult {
	t.Helper()
	select {
	case <-tr.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("task did not finish")
	}
	return runResult{state: tr.State(), started: rec.last(), taskDir: td}
}

// failure returns the event that failed the task, or nil.
func (r runResult) failure() *structs.TaskEvent {
	for _, ev := range r.state.Events {
		if ev.FailsTask {
			return ev
		}
	}
	return nil
}

func (r runResult) hasEvent(typ string) bool {
	for _, ev := range r.state.Events {
		if ev.Type == typ {
			return true
		}
	}
	return false
}

// checkOutcome checks that the task either succeeded, or failed with an
// event of typ whose message holds wantErr, before the driver started it.
func checkOutcome(t *testing.T, r runResult, typ, wantErr string) {
	t.Helper()
	ev := r.failure()
	if wantErr == "" {
		if ev != nil || r.state.Failed || r.started == nil {
			t.Fatalf("want success; failed=%v event=%+v", r.state.Failed, ev)
		}
		return
	}
	if ev == nil || !r.state.Failed {
		t.Fatalf("want failure %q, got none (events %v)", wantErr, eventTypes(r.state))
	}
	t.Logf("%s: %s", ev.Type, ev.DisplayMessage)
	if ev.Type != typ || !strings.Contains(ev.DisplayMessage, wantErr) {
		t.Fatalf("failure = %s %q, want %s containing %q", ev.Type, ev.DisplayMessage, typ, wantErr)
	}
	if r.started != nil {
		t.Fatal("the driver started a task whose prestart failed")
	}
}

func eventTypes(ts *structs.TaskState) []string {
	var out []string
	for _, ev := range ts.Events {
		out = append(out, ev.Type+": "+ev.DisplayMessage)
	}
	return out
}
