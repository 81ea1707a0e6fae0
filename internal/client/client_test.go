package client

import (
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

func TestRegisterAndHeartbeatAtTTL(t *testing.T) {
	h := newHarness(t)
	c := h.start()
	h.waitFor("register", func() bool { r, _, _ := h.fs.counts(); return r == 1 })
	n := h.fs.registers[0]
	if n.ID != c.NodeID() || n.Name != "node1" || n.Meta["rack"] != "r1" || n.Attributes["driver.mock"] != "1" || n.Status != structs.NodeStatusReady {
		t.Fatalf("registered node = %+v", n)
	}
	h.advanceUntil("two heartbeats", 500*time.Millisecond, func() bool { _, hb, _ := h.fs.counts(); return hb >= 2 })
	h.fs.mu.Lock()
	first, second := h.fs.heartbeatTimes[0].Sub(epoch), h.fs.heartbeatTimes[1].Sub(h.fs.heartbeatTimes[0])
	h.fs.mu.Unlock()
	// TTL 10s: every beat comes between TTL/2 and 3/4 TTL after the last.
	for _, d := range []time.Duration{first, second} {
		if d < 5*time.Second || d > 8*time.Second {
			t.Fatalf("heartbeat intervals %v, %v not within the TTL window", first, second)
		}
	}
}

func TestReregisterOnNodeNotFoundAndFingerprintChange(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor("register", func() bool { r, _, _ := h.fs.counts(); return r == 1 })
	h.fs.mu.Lock()
	h.fs.failHeartbeats = 1
	h.fs.mu.Unlock()
	h.advanceUntil("re-register after node not found", 500*time.Millisecond, func() bool { r, _, _ := h.fs.counts(); return r == 2 })

	h.fpMu.Lock()
	h.fpGen++
	h.fpMu.Unlock()
	h.advanceUntil("re-register after fingerprint change", time.Second, func() bool { r, _, _ := h.fs.counts(); return r == 3 })
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if got := h.fs.registers[2].Attributes["fp.gen"]; got != "1" {
		t.Fatalf("re-registered node carries fp.gen=%q", got)
	}
	if since := h.fs.registerTimes[2].Sub(h.fs.registerTimes[1]); since > 31*time.Second {
		t.Fatalf("fingerprint change noticed after %v", since)
	}
}

func TestAllocRunsToCompletion(t *testing.T) {
	h := newHarness(t)
	h.start()
	job := mockJob(structs.JobTypeBatch, &structs.Task{Name: "web", Config: map[string]any{"run_for": "5s"}})
	h.fs.upsert(newAlloc("a1", job))
	h.reported("a1", structs.AllocClientStatusRunning)
	got := h.reported("a1", structs.AllocClientStatusComplete)
	ts := got.TaskStates["web"]
	if ts.State != structs.TaskStateDead || ts.Failed {
		t.Fatalf("task state = %+v", ts)
	}
	want := []string{taskrunner.EventReceived, taskrunner.EventSetup, taskrunner.EventStarted, taskrunner.EventTerminated}
	if !slices.Equal(eventTypes(ts), want) {
		t.Fatalf("events = %v, want %v", eventTypes(ts), want)
	}
	if got.NodeID != h.c.NodeID() {
		t.Fatalf("update node id = %q", got.NodeID)
	}
}

func TestFailingTaskRestartsThenFailsAlloc(t *testing.T) {
	h := newHarness(t)
	h.start()
	job := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_for": "1s", "exit_code": 3}})
	job.TaskGroups[0].RestartPolicy = &structs.RestartPolicy{Attempts: 2, Interval: 10 * time.Minute, Delay: 5 * time.Second, Mode: structs.RestartPolicyModeFail}
	h.fs.upsert(newAlloc("a1", job))
	got := h.reported("a1", structs.AllocClientStatusFailed)
	ts := got.TaskStates["web"]
	if ts.State != structs.TaskStateDead || !ts.Failed || ts.Restarts != 2 {
		t.Fatalf("task state = %+v", ts)
	}
	evs := eventTypes(ts)
	if n := count(evs, taskrunner.EventRestarting); n != 2 {
		t.Fatalf("restarting events = %d in %v", n, evs)
	}
	if evs[len(evs)-1] != taskrunner.EventNotRestarting || !ts.Events[len(evs)-1].FailsTask {
		t.Fatalf("last event = %v", evs)
	}
	if ts.Events[len(evs)-2].Type != taskrunner.EventTerminated || ts.Events[len(evs)-2].ExitCode != 3 {
		t.Fatalf("terminated event = %+v", ts.Events[len(evs)-2])
	}
}

func count(s []string, v string) int {
	n := 0
	for _, e := range s {
		if e == v {
			n++
		}
	}
	return n
}

func TestStopDesiredKillsTasks(t *testing.T) {
	h := newHarness(t)
	h.start()
	job := mockJob(structs.JobTypeService, &structs.Task{Name: "web", KillTimeout: 5 * time.Second, Config: map[string]any{"kill_after": "2s"}})
	h.fs.upsert(newAlloc("a1", job))
	h.reported("a1", structs.AllocClientStatusRunning)
	h.fs.stop("a1")
	got := h.reported("a1", structs.AllocClientStatusComplete)
	ts := got.TaskStates["web"]
	evs := eventTypes(ts)
	if ts.Failed || !slices.Contains(evs, taskrunner.EventKilling) || evs[len(evs)-1] != taskrunner.EventKilled {
		t.Fatalf("task = %+v events %v", ts, evs)
	}
	if ts.Events[len(evs)-2].KillTimeout != 5*time.Second {
		t.Fatalf("killing event = %+v", ts.Events[len(evs)-2])
	}
}

func TestLifecycleOrdering(t *testing.T) {
	h := newHarness(t)
	h.start()
	job := mockJob(structs.JobTypeBatch,
		&structs.Task{Name: "main", Config: map[string]any{"run_for": "3s"}},
		&structs.Task{Name: "init", Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPrestart}, Config: map[string]any{"run_for": "1s"}},
		&structs.Task{Name: "side", Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPrestart, Sidecar: true}, Config: map[string]any{}},
		&structs.Task{Name: "after", Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPoststart}, Config: map[string]any{"run_for": "1s"}},
		&structs.Task{Name: "cleanup", Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPoststop}, Config: map[string]any{"run_for": "1s"}},
	)
	h.fs.upsert(newAlloc("a1", job))
	got := h.reported("a1", structs.AllocClientStatusComplete)
	st := got.TaskStates
	for name, ts := range st {
		if ts.State != structs.TaskStateDead || ts.Failed {
			t.Fatalf("%s = %+v", name, ts)
		}
	}
	if st["main"].StartedAt.Before(st["init"].FinishedAt) {
		t.Fatalf("main started %v before prestart finished %v", st["main"].StartedAt, st["init"].FinishedAt)
	}
	if st["main"].StartedAt.Before(st["side"].StartedAt) || st["after"].StartedAt.Before(st["main"].StartedAt) {
		t.Fatal("sidecar or poststart out of order")
	}
	if st["cleanup"].StartedAt.Before(st["main"].FinishedAt) || st["cleanup"].StartedAt.Before(st["side"].FinishedAt) {
		t.Fatal("poststop started before main and sidecar finished")
	}
	if !slices.Contains(eventTypes(st["side"]), taskrunner.EventKilled) {
		t.Fatalf("sidecar not killed: %v", eventTypes(st["side"]))
	}
}
