package exec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
)

// rootTask is a task the operator allowed to run as root: masks and
// read-only mounts must hold even then (a nobody task is stopped by file
// modes alone, which proves nothing about the mounts).
func rootTask(t *testing.T, d *Driver, script string) *drivers.TaskConfig {
	t.Helper()
	d.cfg.User = UserPolicy{Allowlist: []string{"root"}}
	task := newTask(t, "web", sh(script))
	task.User = "root"
	return task
}

// mountPoints are the mount points the task's /proc/self/mountinfo
// lists, with each one's per-mount options.
func mountPoints(mountinfo string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(l)
		if len(f) > 5 {
			out[f[4]] = f[5]
		}
	}
	return out
}

// TestMaskedPaths: every path runc masks is covered inside the task (an
// empty file or an empty read-only dir), even for a root task.
func TestMaskedPaths(t *testing.T) {
	d := newDriver(t)
	task := rootTask(t, d, `
for f in /proc/kcore /proc/keys /proc/timer_list /proc/latency_stats /proc/sched_debug; do
  test -e $f || { echo "$f absent"; continue; }
  n=$(head -c 64 $f 2>/dev/null | wc -c); echo "$f read $n"
done
for d in /proc/acpi /proc/scsi /sys/firmware; do
  test -e $d || { echo "$d absent"; continue; }
  echo "$d entries $(ls -A $d | wc -l)"
  touch $d/x 2>/dev/null && echo "$d WRITABLE"
done
echo ---
cat /proc/self/mountinfo`)
	if res := run(t, d, task); res.ExitCode != 0 {
		b, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, b)
	}
	out := stdout(t, task)
	report, mountinfo, _ := strings.Cut(out, "---\n")
	mounts := mountPoints(mountinfo)
	for _, l := range strings.Split(strings.TrimSpace(report), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		path := f[0]
		switch {
		case f[1] == "absent":
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s exists on the host but not in the task", path)
			}
			continue
		case f[1] == "WRITABLE":
			t.Errorf("%s is writable in the task", path)
		case f[2] != "0":
			t.Errorf("%s: %s", path, l)
		}
		if _, ok := mounts[path]; !ok {
			t.Errorf("%s is not masked by a mount in the task: %s", path, l)
		}
	}
	if _, err := os.Stat("/proc/kcore"); err == nil && !strings.Contains(report, "/proc/kcore read 0") {
		t.Errorf("/proc/kcore not masked:\n%s", report)
	}
}

// TestReadOnlyProc: /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus
// are read-only mounts, so even a root task cannot write a sysctl.
func TestReadOnlyProc(t *testing.T) {
	d := newDriver(t)
	// Opening sysrq-trigger for writing and writing nothing triggers no
	// action: only the open is checked.
	task := rootTask(t, d, `
echo drover-test > /proc/sys/kernel/hostname 2>/dev/null && echo "hostname WRITTEN"
test -e /proc/sysrq-trigger && ( : > /proc/sysrq-trigger ) 2>/dev/null && echo "sysrq WRITABLE"
echo ---
cat /proc/self/mountinfo`)
	if res := run(t, d, task); res.ExitCode != 0 {
		b, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, b)
	}
	report, mountinfo, _ := strings.Cut(stdout(t, task), "---\n")
	if strings.TrimSpace(report) != "" {
		t.Errorf("a root task wrote to /proc: %q", report)
	}
	mounts := mountPoints(mountinfo)
	for _, p := range []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if opts, ok := mounts[p]; !ok || !strings.HasPrefix(opts, "ro") {
			t.Errorf("%s: mount options %q (mounted: %v), want ro", p, opts, ok)
		}
	}
}

// TestPivotRoot: the task's root is a mount of its own (pivot_root), not
// a chroot into the host's tree: the executor (PID 1 of the task) has the
// same root, so /proc/1/root leads nowhere else, and the host's
// filesystem is not mounted anywhere in the task's namespace.
func TestPivotRoot(t *testing.T) {
	d := newDriver(t)
	task := rootTask(t, d, `ls /proc/1/root/ >/dev/null 2>&1 && ls -A /proc/1/root/local >/dev/null 2>&1 && echo "1-root-is-task-root"; cat /proc/self/mountinfo`)
	if res := run(t, d, task); res.ExitCode != 0 {
		b, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, b)
	}
	out := stdout(t, task)
	mounts := mountPoints(out)
	if _, ok := mounts["/"]; !ok {
		t.Fatalf("no mount at / in the task:\n%s", out)
	}
	for mp := range mounts {
		if strings.HasPrefix(mp, task.TaskDir.Dir) {
			t.Errorf("the host path %s is visible in the task's mounts", mp)
		}
	}
}

// TestExecTaskIsConfined: a command exec'd into a task is held to the
// task's bounding set, as the task is.
func TestExecTaskIsConfined(t *testing.T) {
	d := newDriver(t)
	d.cfg.User = UserPolicy{Allowlist: []string{"root"}}
	task := newTask(t, "web", sh("echo up > /local/up; sleep 300"))
	task.User = "root"
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
	waitForFile(t, task.TaskDir.LocalDir+"/up")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := d.ExecTask(ctx, task.ID, &drivers.ExecRequest{
		Command: []string{"/bin/sh", "-c", "grep -E 'CapBnd|NoNewPrivs' /proc/self/status; cat /proc/keys /proc/timer_list 2>/dev/null | wc -c; hostname"},
		Stdout:  &out, Stderr: &out,
	})
	if err != nil || code != 0 {
		t.Fatalf("exec: %d %v %s", code, err, out.String())
	}
	var bnd uint64
	for _, l := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "CapBnd:"); ok {
			fmtSscan(t, strings.TrimSpace(v), &bnd)
		}
	}
	if bnd&(1<<21) != 0 || bnd == 0 {
		t.Errorf("exec'd command's bounding set %x (holds sys_admin, or nothing parsed): %s", bnd, out.String())
	}
	if !strings.Contains(out.String(), "NoNewPrivs:\t1") {
		t.Errorf("no_new_privs not set: %s", out.String())
	}
	if !strings.Contains(out.String(), "\n0\nweb\n") {
		t.Errorf("exec'd command does not see the task's masks and hostname: %q", out.String())
	}
}

// TestTaskAndExecJoinTheAllocNetNS: with a network namespace (bridge
// mode), the task and an exec session into it see that namespace's links
// only (a fresh one has just lo), in /sys/class/net of the task's sysfs.
func TestTaskAndExecJoinTheAllocNetNS(t *testing.T) {
	d := newDriver(t)
	ipPath, err := osexec.LookPath("ip")
	if err != nil {
		t.Skip("ip (iproute2) not installed")
	}
	name := fmt.Sprintf("drover-exectest-%d", os.Getpid())
	if out, err := osexec.Command(ipPath, "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = osexec.Command(ipPath, "netns", "del", name).Run() })
	task := newTask(t, "web", sh("ls /sys/class/net > /local/links; sleep 300"))
	task.Network = &drivers.NetworkIsolation{Mode: "bridge", NetNSPath: "/var/run/netns/" + name}
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
	waitForFile(t, task.TaskDir.LocalDir+"/links")
	testutil.WaitFor(t, 10*time.Second, "the task's link list", func() (bool, string) {
		b, _ := os.ReadFile(task.TaskDir.LocalDir + "/links")
		return string(b) == "lo\n", string(b)
	})
	var out bytes.Buffer
	code, err := d.ExecTask(context.Background(), task.ID, &drivers.ExecRequest{Command: []string{"/bin/cat", "/proc/net/dev"}, Stdout: &out, Stderr: &out})
	if err != nil || code != 0 {
		t.Fatalf("exec: %d %v %s", code, err, out.String())
	}
	if n := strings.Count(out.String(), ":"); n != 1 || !strings.Contains(out.String(), "lo:") {
		t.Fatalf("exec session's links: %q", out.String())
	}
}
