package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
)

// executorEnv makes the test binary act as the executor (see TestMain).
const executorEnv = "DROVER_TEST_EXEC_EXECUTOR"

// testCgroupParent is this test process's own cgroup parent: test runs
// side by side (CI shards, several checkouts) must not remove each
// other's cgroups at exit.
var testCgroupParent = fmt.Sprintf("drover-test-%d", os.Getpid())

func TestMain(m *testing.M) {
	if os.Getenv(executorEnv) == "1" {
		ExecutorMain()
	}
	if f := os.Getenv(escapeEnv); f != "" {
		chrootEscape(f)
	}
	code := m.Run()
	// Task cgroups are removed by Destroy; the parent is the tests' own.
	for _, c := range []string{"memory", "cpu", "cpuacct", ""} {
		_ = syscall.Rmdir(filepath.Join(cgroupRoot, c, testCgroupParent))
	}
	os.Exit(code)
}

// newDriver skips tests that need real isolation where it is impossible.
func newDriver(t *testing.T) *Driver {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("exec driver tests need Linux")
	}
	if os.Geteuid() != 0 {
		t.Skip("exec driver tests need root (namespaces, chroot, cgroups); run them as root")
	}
	if DetectCgroups() == CgroupNone {
		t.Skip("exec driver tests need cgroups (v2, or v1 memory and cpu controllers)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewWithOptions(nil, drivers.Env{}, Options{
		ExecutorCommand: []string{self},
		ExecutorEnv:     []string{executorEnv + "=1"},
		CgroupParent:    testCgroupParent,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newTask lays out an alloc dir the way the client does.
func newTask(t *testing.T, name string, cfg map[string]any) *drivers.TaskConfig {
	t.Helper()
	alloc := t.TempDir()
	dir := drivers.TaskDir{
		Dir: filepath.Join(alloc, name), AllocDir: filepath.Join(alloc, "alloc"),
		LocalDir: filepath.Join(alloc, name, "local"), SecretsDir: filepath.Join(alloc, name, "secrets"),
		LogDir: filepath.Join(alloc, "alloc", "logs"),
	}
	for _, p := range []string{dir.LocalDir, dir.SecretsDir, dir.LogDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &drivers.TaskConfig{
		ID: "a1b2/" + name, AllocID: "a1b2", TaskName: name, Config: cfg, TaskDir: dir,
		StdoutPath: filepath.Join(dir.LogDir, name+".stdout.0"), StderrPath: filepath.Join(dir.LogDir, name+".stderr.0"),
		Resources: drivers.Resources{CPUShares: 100, MemoryMB: 64},
	}
}

func sh(script string) map[string]any {
	return map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}
}

func run(t *testing.T, d *Driver, task *drivers.TaskConfig) *drivers.ExitResult {
	t.Helper()
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
	return waitExit(t, d, task.ID, 20*time.Second)
}

func waitExit(t *testing.T, d *Driver, id string, within time.Duration) *drivers.ExitResult {
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
	d, err := NewWithOptions(nil, drivers.Env{}, Options{ExecutorCommand: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		cfg   map[string]any
		field string
	}{
		{"valid", map[string]any{"command": "/bin/true", "args": []any{"a"}}, ""},
		{"missing command", map[string]any{}, "command"},
		{"unknown field", map[string]any{"command": "x", "chroot": "/"}, "chroot"},
		{"args wrong type", map[string]any{"command": "x", "args": map[string]any{}}, "args"},
		{"command wrong type", map[string]any{"command": []any{"x"}}, "command"},
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

func TestPluginConfigRejectsUnknownField(t *testing.T) {
	_, err := New(map[string]any{"chroot_envv": map[string]any{}}, drivers.Env{})
	var ce *drivers.ConfigError
	if !errors.As(err, &ce) || ce.Field != "chroot_envv" {
		t.Fatalf("new = %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	d := newDriver(t)
	info := d.Fingerprint(context.Background())
	if !info.Detected || !info.Healthy || info.Attributes["driver.exec.cgroup"] == "" {
		t.Fatalf("fingerprint = %+v", info)
	}
}

func TestExitCodeAndLogs(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("echo hi; echo err >&2; exit 3"))
	res := run(t, d, task)
	if res.ExitCode != 3 || res.Signal != 0 || res.OOMKilled || res.Err != nil {
		t.Fatalf("exit = %+v", res)
	}
	if out, _ := os.ReadFile(task.StdoutPath); string(out) != "hi\n" {
		t.Fatalf("stdout = %q", out)
	}
	if out, _ := os.ReadFile(task.StderrPath); string(out) != "err\n" {
		t.Fatalf("stderr = %q", out)
	}
}

func TestTaskDirsMounted(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("echo shared > /alloc/x && echo own > /local/y && hostname && test ! -e /home"))
	if res := run(t, d, task); res.ExitCode != 0 {
		out, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, out)
	}
	if b, _ := os.ReadFile(filepath.Join(task.TaskDir.AllocDir, "x")); string(b) != "shared\n" {
		t.Fatalf("alloc dir not shared: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(task.TaskDir.LocalDir, "y")); string(b) != "own\n" {
		t.Fatalf("local dir not mounted: %q", b)
	}
	if out, _ := os.ReadFile(task.StdoutPath); string(out) != "web\n" {
		t.Fatalf("hostname = %q, want the task name (own UTS namespace)", out)
	}
}

func TestCannotSeeHostProcesses(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("ls /proc"))
	if res := run(t, d, task); res.ExitCode != 0 {
		t.Fatalf("exit = %+v", res)
	}
	out, _ := os.ReadFile(task.StdoutPath)
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	// The namespace holds the executor (1), sh and ls; the host has far
	// more, including this test process. (Numbers alone prove nothing: the
	// executor's Go runtime threads use up PIDs of the namespace too.)
	if len(pids) == 0 || len(pids) > 4 || !slices.Contains(pids, 1) {
		t.Fatalf("task sees pids %v", pids)
	}
	if slices.Contains(pids, os.Getpid()) && os.Getpid() != 1 {
		t.Fatalf("task sees this test's pid %d among %v", os.Getpid(), pids)
	}
}

func TestMemoryLimitOOMKills(t *testing.T) {
	d := newDriver(t)
	// tail keeps a newline-free input in memory: 256 MB against 32 MB.
	task := newTask(t, "hog", sh("head -c 268435456 /dev/zero | tail"))
	task.Resources.MemoryMB = 32
	res := run(t, d, task)
	if !res.OOMKilled {
		t.Fatalf("exit = %+v, want OOMKilled", res)
	}
}

func TestStopKillsTreeAfterTimeout(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh(`trap "" TERM; sleep 300 & sleep 300 & echo up > /local/ready; wait`))
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
	waitForFile(t, filepath.Join(task.TaskDir.LocalDir, "ready")) // the trap is set
	begin := time.Now()
	if err := d.Stop(task.ID, 300*time.Millisecond, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Fatalf("stop took %s", took)
	}
	if res := waitExit(t, d, task.ID, time.Second); res.Signal != 9 {
		t.Fatalf("exit = %+v", res)
	}
	tk, _ := d.tasks.Get(task.ID)
	for _, f := range tk.cg.procsFiles() {
		if b, _ := os.ReadFile(f); strings.TrimSpace(string(b)) != "" {
			t.Fatalf("processes left in cgroup: %s", b)
		}
	}
	if err := d.Destroy(task.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range tk.cg.Paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("cgroup %s not removed", p)
		}
	}
}

func TestRecoverKeepsExitStatus(t *testing.T) {
	d1 := newDriver(t)
	task := newTask(t, "web", map[string]any{"command": "sleep", "args": []any{"300"}})
	h, err := d1.Start(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	d2 := newDriver(t) // the restarted client's driver
	if err := d2.Recover(h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d2.Destroy(task.ID, true) })
	if st, err := d2.Stats(context.Background(), task.ID); err != nil || st.MemoryUsageBytes == 0 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	if err := d2.Stop(task.ID, 10*time.Second, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	// The executor, not the client, was the parent: the real status
	// survives the restart.
	if res := waitExit(t, d2, task.ID, 5*time.Second); res.Signal != 15 || res.Err != nil {
		t.Fatalf("exit = %+v", res)
	}
}

func TestMissingCommandFailsStart(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", map[string]any{"command": "/no/such/thing"})
	_, err := d.Start(context.Background(), task)
	if err == nil || !strings.Contains(err.Error(), "not found in the task's chroot") {
		t.Fatalf("start = %v", err)
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, path+" to appear", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
