package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

func TestUpdatesAreBatched(t *testing.T) {
	h := newHarness(t)
	c := h.start()
	h.waitFor("register", func() bool { r, _, _ := h.fs.counts(); return r == 1 })
	var allocs []*structs.Allocation
	for i := range 10 {
		allocs = append(allocs, newAlloc(fmt.Sprintf("a%d", i), mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{}})))
	}
	h.fs.upsert(allocs...)
	h.waitFor("all allocs running locally", func() bool {
		for _, a := range allocs {
			if s, err := c.AllocState(a.ID); err != nil || s == nil || s.ClientStatus != structs.AllocClientStatusRunning {
				return false
			}
		}
		return true
	})
	h.clock.Advance(DefaultUpdateBatchInterval)
	h.waitFor("one update", func() bool { _, _, u := h.fs.counts(); return u >= 1 })
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if len(h.fs.updates) != 1 || len(h.fs.updates[0]) != 10 {
		t.Fatalf("updates = %d calls, first with %d allocs", len(h.fs.updates), len(h.fs.updates[0]))
	}
	for _, a := range h.fs.updates[0] {
		if a.ClientStatus != structs.AllocClientStatusRunning {
			t.Fatalf("alloc %s reported %s", a.ID, a.ClientStatus)
		}
	}
}

func TestDriverFailureFailsOnlyThatAlloc(t *testing.T) {
	h := newHarness(t)
	h.start()
	bad := newAlloc("bad", mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_forever": true}}))
	good := newAlloc("good", mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{}}))
	h.fs.upsert(bad, good)
	got := h.reported("bad", structs.AllocClientStatusFailed)
	ts := got.TaskStates["web"]
	last := ts.Events[len(ts.Events)-1]
	if last.Type != taskrunner.EventDriverFailure || !strings.Contains(last.DisplayMessage, "run_forever") || !ts.Failed {
		t.Fatalf("events = %v, last %+v", eventTypes(ts), last)
	}
	h.reported("good", structs.AllocClientStatusRunning)

	// A malformed alloc (no such group) fails with a reason too.
	broken := newAlloc("broken", mockJob(structs.JobTypeService, &structs.Task{Name: "web"}))
	broken.TaskGroup = "nope"
	h.fs.upsert(broken)
	if got := h.reported("broken", structs.AllocClientStatusFailed); !strings.Contains(got.ClientDescription, "nope") {
		t.Fatalf("description = %q", got.ClientDescription)
	}
}

func TestDeploymentHealth(t *testing.T) {
	h := newHarness(t)
	h.start()
	update := &structs.UpdateStrategy{MaxParallel: 1, HealthCheck: structs.UpdateHealthCheckTaskStates, MinHealthyTime: 10 * time.Second, HealthyDeadline: time.Minute}
	okJob := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{}})
	okJob.TaskGroups[0].Update = update
	ok := newAlloc("ok", okJob)
	ok.DeploymentID = "d1"
	badJob := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_for": "2s", "exit_code": 1}})
	badJob.TaskGroups[0].Update = update
	bad := newAlloc("bad", badJob)
	bad.DeploymentID = "d1"
	h.fs.upsert(ok, bad)

	var healthyAt time.Time
	h.advanceUntil("ok alloc healthy", 500*time.Millisecond, func() bool {
		a := h.fs.lastUpdate("ok")
		if a != nil && a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			healthyAt = a.DeploymentStatus.Timestamp
			return *a.DeploymentStatus.Healthy
		}
		return false
	})
	if started := h.fs.lastUpdate("ok").TaskStates["web"].StartedAt; healthyAt.Sub(started) < 10*time.Second {
		t.Fatalf("healthy %v after start, before min_healthy_time", healthyAt.Sub(started))
	}
	a := h.reported("bad", structs.AllocClientStatusFailed)
	if a.DeploymentStatus == nil || a.DeploymentStatus.Healthy == nil || *a.DeploymentStatus.Healthy {
		t.Fatalf("failed alloc health = %+v", a.DeploymentStatus)
	}
}

func TestEnvInterpolationAndLogsWithRawExec(t *testing.T) {
	h := newHarness(t)
	h.start()
	task := &structs.Task{Name: "web", Driver: "raw_exec", Env: map[string]string{"GREETING": "hi-${node.datacenter}"},
		Meta: map[string]string{"owner": "ops"},
		Config: map[string]any{"command": "/bin/sh", "args": []any{"-c",
			"echo $NOMAD_ALLOC_ID $NOMAD_TASK_NAME $NOMAD_JOB_NAME $NOMAD_GROUP_NAME $NOMAD_DC $GREETING $NOMAD_META_owner $NOMAD_PORT_http ${attr.kernel.name} ${meta.rack} ${node.unique.name}; echo oops >&2"}},
		Resources: &structs.Resources{CPU: 250, MemoryMB: 64}}
	a := newAlloc("a1", mockJob(structs.JobTypeBatch, task))
	a.AllocatedResources = &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{
		Ports: []structs.AllocatedPortMapping{{Label: "http", Value: 25000, HostIP: "127.0.0.1"}}}}
	h.fs.upsert(a)
	h.reported("a1", structs.AllocClientStatusComplete)
	files, err := h.c.AllocLogFiles("a1", "web", logmon.Stdout)
	if err != nil || len(files) != 1 {
		t.Fatalf("log files = %v %v", files, err)
	}
	out, _ := os.ReadFile(files[0].Path)
	want := "a1 web job1 g dc1 hi-dc1 ops 25000 linux r1 node1\n"
	if string(out) != want {
		t.Fatalf("stdout = %q, want %q", out, want)
	}
	errFiles, _ := h.c.AllocLogFiles("a1", "web", logmon.Stderr)
	if b, _ := os.ReadFile(errFiles[0].Path); string(b) != "oops\n" {
		t.Fatalf("stderr = %q", b)
	}
	if _, err := h.c.AllocLogFiles("a1", "web", "stdin"); err == nil {
		t.Fatal("bad stream accepted")
	}
}

func TestLogRotation(t *testing.T) {
	h := newHarness(t)
	h.start()
	big := strings.Repeat("x", 5<<19) // 2.5 MiB
	task := &structs.Task{Name: "web", LogConfig: &structs.LogConfig{MaxFiles: 2, MaxFileSizeMB: 1},
		Config: map[string]any{"run_for": "1s", "stdout_string": big}}
	h.fs.upsert(newAlloc("a1", mockJob(structs.JobTypeBatch, task)))
	h.reported("a1", structs.AllocClientStatusComplete)
	files, err := h.c.AllocLogFiles("a1", "web", logmon.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Index != 1 || files[1].Index != 2 || files[0].Size != 1<<20 || files[1].Size != 1<<19 {
		t.Fatalf("files = %+v", files)
	}
}

func TestRestartedClientReattachesToRawExecTask(t *testing.T) {
	h := newHarness(t)
	c1 := h.start()
	task := &structs.Task{Name: "web", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sh", "args": []any{"-c", "echo $$ > ${NOMAD_TASK_DIR}/pid; exec sleep 60"}}}
	h.fs.upsert(newAlloc("a1", mockJob(structs.JobTypeService, task)))
	h.reported("a1", structs.AllocClientStatusRunning)
	pidFile := filepath.Join(h.cfg.DataDir, "alloc", "a1", "web", "local", "pid")
	var pid int
	h.waitFor("pid file", func() bool {
		b, err := os.ReadFile(pidFile)
		_, err2 := fmt.Sscan(string(b), &pid)
		return err == nil && err2 == nil
	})
	if err := c1.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("task died with the client: %v", err)
	}
	updatesBefore := func() int { _, _, u := h.fs.counts(); return u }()

	c2 := h.start()
	if c2.NodeID() != c1.NodeID() {
		t.Fatalf("node id changed: %s -> %s", c1.NodeID(), c2.NodeID())
	}
	st, err := c2.AllocState("a1")
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("restored state", func() bool { st, _ = c2.AllocState("a1"); return st != nil })
	if st.ClientStatus != structs.AllocClientStatusRunning {
		t.Fatalf("restored alloc = %s", st.ClientStatus)
	}
	h.advanceUntil("heartbeat from the new client", 500*time.Millisecond, func() bool { _, hb, _ := h.fs.counts(); return hb >= 1 })
	h.fs.mu.Lock()
	for _, batch := range h.fs.updates[updatesBefore:] {
		for _, a := range batch {
			if a.ClientStatus != structs.AllocClientStatusRunning || a.TaskStates["web"].Failed {
				t.Errorf("restarted client reported %s: %v", a.ClientStatus, eventTypes(a.TaskStates["web"]))
			}
		}
	}
	h.fs.mu.Unlock()
	if evs := eventTypes(st.TaskStates["web"]); evs[len(evs)-1] != taskrunner.EventStarted {
		t.Fatalf("events after re-attach = %v", evs)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("task not running after re-attach: %v", err)
	}
	// Stopping the alloc through the new client kills the re-attached task.
	h.fs.stop("a1")
	h.reported("a1", structs.AllocClientStatusComplete)
	h.waitFor("task process gone", func() bool { return syscall.Kill(pid, 0) != nil })
}

// A batch task re-attached after a client restart that then exits 0 is
// recorded with its real exit code: the alloc completes, nothing is
// counted as failed, and the task never runs a second time. The same
// holds for a task that finished while no client was running.
func TestRestartedClientRecordsExitOfReattachedBatchTask(t *testing.T) {
	for _, finishWhileAway := range []bool{false, true} {
		t.Run(fmt.Sprintf("finished while away=%v", finishWhileAway), func(t *testing.T) {
			h := newHarness(t)
			c1 := h.start()
			task := &structs.Task{Name: "work", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sh", "args": []any{"-c",
				`echo run >> ${NOMAD_TASK_DIR}/runs; while [ ! -e ${NOMAD_TASK_DIR}/go ]; do sleep 0.02; done; exit 0`}}}
			h.fs.upsert(newAlloc("a1", mockJob(structs.JobTypeBatch, task)))
			h.reported("a1", structs.AllocClientStatusRunning)
			taskDir := filepath.Join(h.cfg.DataDir, "alloc", "a1", "work", "local")
			h.waitFor("first run", func() bool { _, err := os.Stat(filepath.Join(taskDir, "runs")); return err == nil })
			if err := c1.Shutdown(); err != nil {
				t.Fatal(err)
			}
			release := func() {
				if err := os.WriteFile(filepath.Join(taskDir, "go"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if finishWhileAway {
				release()
				h.waitFor("the supervisor's exit file", func() bool {
					m, _ := filepath.Glob(filepath.Join(h.cfg.DataDir, "alloc", "a1", "raw_exec-*.exit.json"))
					return len(m) == 1
				})
			}
			h.start()
			if !finishWhileAway {
				h.waitFor("restored state", func() bool { st, _ := h.c.AllocState("a1"); return st != nil })
				release()
			}
			got := h.reported("a1", structs.AllocClientStatusComplete)
			ts := got.TaskStates["work"]
			if ts.Failed || ts.Restarts != 0 {
				t.Fatalf("task failed=%v restarts=%d events %v", ts.Failed, ts.Restarts, eventTypes(ts))
			}
			for _, ev := range ts.Events {
				if ev.Type == taskrunner.EventTerminated && (ev.ExitCode != 0 || strings.Contains(ev.DisplayMessage, "unknown")) {
					t.Fatalf("terminated event %q", ev.DisplayMessage)
				}
			}
			if runs, _ := os.ReadFile(filepath.Join(taskDir, "runs")); string(runs) != "run\n" {
				t.Fatalf("the task ran %d times", strings.Count(string(runs), "run"))
			}
		})
	}
}
