package rawexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
	"github.com/drover-project/drover/internal/testutil"
)

func newDriver(t *testing.T) drivers.Driver {
	t.Helper()
	d, err := New(map[string]any{"enabled": true}, drivers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newTask(t *testing.T, cfg map[string]any) *drivers.TaskConfig {
	t.Helper()
	dir := t.TempDir()
	return &drivers.TaskConfig{
		ID: "alloc1/web", AllocID: "alloc1", TaskName: "web", Config: cfg,
		Env:        map[string]string{"GREETING": "hi"},
		TaskDir:    drivers.TaskDir{Dir: dir, LocalDir: dir},
		StdoutPath: filepath.Join(dir, "stdout.0"), StderrPath: filepath.Join(dir, "stderr.0"),
	}
}

func waitExit(t *testing.T, d drivers.Driver, id string, within time.Duration) *drivers.ExitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	ch, err := d.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	res, ok := <-ch
	if !ok {
		t.Fatalf("task %s did not exit within %s", id, within)
	}
	return res
}

func TestValidateConfig(t *testing.T) {
	d := newDriver(t)
	cases := []struct {
		name  string
		cfg   map[string]any
		field string // "" means valid
	}{
		{"valid", map[string]any{"command": "/bin/true", "args": []any{"a"}}, ""},
		{"valid string list", map[string]any{"command": "/bin/true", "args": []string{"a"}}, ""},
		{"missing command", map[string]any{"args": []any{"a"}}, "command"},
		{"empty command", map[string]any{"command": ""}, "command"},
		{"unknown field", map[string]any{"command": "x", "comand": "y"}, "comand"},
		{"args wrong type", map[string]any{"command": "x", "args": "a b"}, "args"},
		{"command wrong type", map[string]any{"command": 3}, "command"},
		{"args element wrong type", map[string]any{"command": "x", "args": []any{"a", 1}}, "args"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := d.ValidateConfig(tc.cfg)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("want error naming %q, got %v", tc.field, err)
			}
		})
	}
}

func TestDisabledByDefault(t *testing.T) {
	d, err := New(nil, drivers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if info := d.Fingerprint(context.Background()); info.Detected || info.HealthDescription != DisabledDescription {
		t.Fatalf("fingerprint = %+v", info)
	}
	_, err = d.Start(context.Background(), newTask(t, map[string]any{"command": "/bin/true"}))
	if !errors.Is(err, drivers.ErrDriverDisabled) {
		t.Fatalf("start = %v", err)
	}
}

func TestRunExitCodeAndLogs(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, map[string]any{"command": "/bin/sh", "args": []any{"-c", "echo $GREETING; echo oops >&2; exit 3"}})
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	res := waitExit(t, d, task.ID, 10*time.Second)
	if res.ExitCode != 3 || res.Signal != 0 || res.Err != nil {
		t.Fatalf("exit = %+v", res)
	}
	if out, _ := os.ReadFile(task.StdoutPath); string(out) != "hi\n" {
		t.Fatalf("stdout = %q", out)
	}
	if out, _ := os.ReadFile(task.StderrPath); string(out) != "oops\n" {
		t.Fatalf("stderr = %q", out)
	}
	if err := d.Destroy(task.ID, false); err != nil {
		t.Fatal(err)
	}
}

func TestMissingCommand(t *testing.T) {
	d := newDriver(t)
	_, err := d.Start(context.Background(), newTask(t, map[string]any{"command": "/no/such/binary"}))
	if err == nil || !strings.Contains(err.Error(), "/no/such/binary") {
		t.Fatalf("start = %v", err)
	}
}

// startTree starts a shell that ignores SIGTERM (as does its child, since
// ignored signals survive exec) and records its child's PID.
func startTree(t *testing.T, d drivers.Driver) (*drivers.TaskConfig, *drivers.TaskHandle, int) {
	t.Helper()
	task := newTask(t, map[string]any{"command": "/bin/sh", "args": []any{"-c", `trap "" TERM; sleep 300 & echo $! > child.pid; wait`}})
	h, err := d.Start(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(task.TaskDir.Dir, "child.pid")
	var pid int
	testutil.WaitFor(t, 5*time.Second, "the child pid written", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return true
	})
	return task, h, pid
}

func TestStopKillsTreeAfterTimeout(t *testing.T) {
	d := newDriver(t)
	task, _, child := startTree(t, d)
	childStart, err := procutil.StartTime(child)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	if err := d.Stop(task.ID, 300*time.Millisecond, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Fatalf("stop took %s", took)
	}
	res := waitExit(t, d, task.ID, 5*time.Second)
	if res.Signal != 9 || res.ExitCode != 137 {
		t.Fatalf("exit = %+v", res)
	}
	// The child is in the group, so it got the SIGKILL too. It is our
	// grandchild, reparented to init (or a subreaper), so poll.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := procutil.WaitGone(ctx, child, childStart); err != nil {
		t.Fatalf("child %d survived the stop", child)
	}
}

func TestStopWithTermExitsEarly(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, map[string]any{"command": "/bin/sleep", "args": []any{"300"}})
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	if err := d.Stop(task.ID, 30*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Fatalf("stop waited for the timeout: %s", took)
	}
	if res := waitExit(t, d, task.ID, time.Second); res.Signal != 15 {
		t.Fatalf("exit = %+v", res)
	}
}

func TestRecoverAfterRestart(t *testing.T) {
	d1 := newDriver(t)
	task := newTask(t, map[string]any{"command": "/bin/sleep", "args": []any{"300"}})
	h, err := d1.Start(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	// A restarted client has only the persisted handle and a new driver.
	d2 := newDriver(t)
	if err := d2.Recover(h); err != nil {
		t.Fatal(err)
	}
	if st, err := d2.Stats(context.Background(), task.ID); err != nil || st.CPUTotalNanos > uint64(time.Minute) {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	if err := d2.Stop(task.ID, 5*time.Second, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	// The supervisor recorded the real status for the re-attached driver.
	res := waitExit(t, d2, task.ID, 5*time.Second)
	if res.Err != nil || res.Signal != 15 {
		t.Fatalf("exit = %+v", res)
	}
	// The old instance (still the supervisor's parent here) agrees.
	if res := waitExit(t, d1, task.ID, 5*time.Second); res.Signal != 15 {
		t.Fatalf("original exit = %+v", res)
	}
	// Once destroyed, a handle to the finished task no longer recovers.
	if err := d2.Destroy(task.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := newDriver(t).Recover(h); !errors.Is(err, drivers.ErrTaskGone) {
		t.Fatalf("recover of dead task = %v", err)
	}
}

// A batch task re-attached after a client restart that then exits 0 must
// report exit code 0, and one that finished while the client was away
// must recover with its exit known (not "gone", which would run it again).
func TestRecoverLearnsRealExitCode(t *testing.T) {
	for _, tc := range []struct {
		name       string
		exitsAfter bool // the task exits after the new driver re-attached
		code       int
	}{
		{"exits 0 after re-attach", true, 0},
		{"exits 7 after re-attach", true, 7},
		{"exited 0 while the client was away", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d1 := newDriver(t)
			task := newTask(t, map[string]any{"command": "/bin/sh", "args": []any{"-c",
				fmt.Sprintf("while [ ! -e go ]; do sleep 0.02; done; exit %d", tc.code)}})
			h, err := d1.Start(context.Background(), task)
			if err != nil {
				t.Fatal(err)
			}
			release := func() {
				if err := os.WriteFile(filepath.Join(task.TaskDir.Dir, "go"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.exitsAfter {
				release()
				waitExit(t, d1, task.ID, 10*time.Second) // finished before the "restart"
			}
			d2 := newDriver(t) // the restarted client: a new driver and the handle
			if err := d2.Recover(h); err != nil {
				t.Fatalf("recover = %v", err)
			}
			if tc.exitsAfter {
				release()
			}
			res := waitExit(t, d2, task.ID, 10*time.Second)
			if res.Err != nil || res.ExitCode != tc.code || res.Signal != 0 {
				t.Fatalf("exit = %+v, want code %d", res, tc.code)
			}
		})
	}
}

func TestRecoverRejectsForeignHandle(t *testing.T) {
	err := newDriver(t).Recover(&drivers.TaskHandle{Driver: "docker", Version: handleVersion})
	if !errors.Is(err, drivers.ErrHandleMismatch) {
		t.Fatalf("recover = %v", err)
	}
}

// groupMembers lists the live (not zombie) processes of group pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procutil.ReadStat(pid); err == nil && st.PGID == pgid && st.State != 'Z' && st.State != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// A task stopped while it is starting must not keep running untracked:
// the stop (the runner's context) arrives once the supervisor has forked
// the task, before Start has its status; Start fails, and no process of
// the task's group is left (it used to kill the supervisor only, and the
// task, re-parented to init, ran on).
func TestStartAbortedMidStartKillsTheWholeGroup(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, map[string]any{"command": "/bin/sleep", "args": []any{"300"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgid := 0
	testHookSupervisorStarted = func(pid int) {
		pgid = pid
		testutil.WaitFor(t, 10*time.Second, "the task forked into the supervisor's group", func() bool {
			return len(groupMembers(pid)) >= 2
		})
		cancel() // the alloc is stopped now, between Setup and Started
	}
	defer func() { testHookSupervisorStarted = nil }()
	if _, err := d.Start(ctx, task); !errors.Is(err, context.Canceled) {
		t.Fatalf("start = %v, want it aborted", err)
	}
	defer func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }() // before the fix: don't leak the sleep
	testutil.WaitFor(t, 10*time.Second, "no process of the task's group left", func() (bool, string) {
		err := syscall.Kill(-pgid, 0)
		return errors.Is(err, syscall.ESRCH), fmt.Sprintf("kill(-%d, 0) = %v; live members %v", pgid, err, groupMembers(pgid))
	})
}

// A client that died after Start launched the supervisor but before it
// persisted the task's handle leaves a task nobody tracks. ReapOrphans
// (run when the client starts) kills a group no handle claims, leaves a
// claimed one alone, and never touches a process Drover did not start.
func TestReapOrphansKillsOnlyUnclaimedGroupsDroverStarted(t *testing.T) {
	root := t.TempDir()
	start := func(alloc string) (*drivers.TaskHandle, int) {
		dir := filepath.Join(root, alloc, "web")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tc := &drivers.TaskConfig{ID: alloc + "/web", AllocID: alloc, TaskName: "web", TaskDir: drivers.TaskDir{Dir: dir},
			Config: map[string]any{"command": "/bin/sleep", "args": []any{"300"}}}
		h, err := newDriver(t).Start(context.Background(), tc)
		if err != nil {
			t.Fatal(err)
		}
		var st taskState
		if err := json.Unmarshal(h.State, &st); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-st.PID, syscall.SIGKILL) })
		return h, st.PID
	}
	_, orphan := start("lost") // its handle never reached the state DB
	kept, claimed := start("kept")
	// A foreign process whose PID a stale record names with another start time.
	foreign := exec.Command("/bin/sleep", "300")
	foreign.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := foreign.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = foreign.Process.Kill(); _ = foreign.Wait() })
	fstart, _ := procutil.StartTime(foreign.Process.Pid)
	if err := os.MkdirAll(filepath.Join(root, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeGroupRecord(filepath.Join(root, "stale", "raw_exec-stale_web"+groupRecordSuffix),
		groupRecord{TaskID: "stale/web", PGID: foreign.Process.Pid, StartTime: fstart - 1}); err != nil {
		t.Fatal(err)
	}

	killed := ReapOrphans(root, []*drivers.TaskHandle{kept})
	if len(killed) != 1 || killed[0] != orphan {
		t.Fatalf("killed %v, want only the orphan %d", killed, orphan)
	}
	testutil.WaitFor(t, 10*time.Second, "the orphan's group gone", func() (bool, string) {
		err := syscall.Kill(-orphan, 0)
		return errors.Is(err, syscall.ESRCH), fmt.Sprintf("kill(-%d, 0) = %v", orphan, err)
	})
	if err := syscall.Kill(-claimed, 0); err != nil {
		t.Fatalf("the claimed task's group: %v", err)
	}
	if err := syscall.Kill(foreign.Process.Pid, 0); err != nil {
		t.Fatalf("the foreign process: %v", err)
	}
}
