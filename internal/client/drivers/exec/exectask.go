package exec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/drover-project/drover/internal/client/drivers"
)

// taskNamespaces are the namespaces an exec session joins, the mount
// namespace last: once it is joined, /proc/<pid>/ns of the host is gone.
var taskNamespaces = []struct {
	name string
	flag int
}{
	{"ipc", unix.CLONE_NEWIPC}, {"uts", unix.CLONE_NEWUTS}, {"net", unix.CLONE_NEWNET},
	{"cgroup", unix.CLONE_NEWCGROUP}, {"pid", unix.CLONE_NEWPID}, {"mnt", unix.CLONE_NEWNS},
}

// ExecTask implements drivers.Execer. The command enters the running
// task's namespaces (setns from a dedicated thread of the client, no
// nsenter) as the task's user, with the task's environment and bounding
// set and no_new_privs, and joins the task's cgroup so its usage counts
// against the task's limits.
func (d *Driver) ExecTask(ctx context.Context, taskID string, req *drivers.ExecRequest) (int, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return 0, err
	}
	pid, env, err := drivers.ExecTarget(t.state.ExecutorPID, t.exit.Exited())
	if err != nil {
		return 0, err
	}
	uid, gid, err := drivers.ProcessIDs(pid)
	if err != nil {
		return 0, err
	}
	cred, err := credential(uid, gid)
	if err != nil {
		return 0, err
	}
	bounding, err := boundingSet(pid)
	if err != nil {
		return 0, err
	}
	path, err := resolveInRoot(fmt.Sprintf("/proc/%d/root", pid), req.Command[0], env)
	if err != nil {
		// As a shell in the task would say it.
		fmt.Fprintf(req.Stderr, "failed to exec %q: %v\n", req.Command[0], err)
		return 127, nil
	}
	cmd := exec.CommandContext(ctx, path, req.Command[1:]...)
	cmd.Args[0] = req.Command[0]
	cmd.Env, cmd.Dir = env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if f := joinCgroupAtFork(t.cg); f != nil {
		defer f.Close()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(f.Fd())
	}
	return drivers.RunExecWith(cmd, req, func(cmd *exec.Cmd) error {
		if err := startInTask(pid, bounding, cmd); err != nil {
			return err
		}
		if t.cg != nil && t.cg.Version == CgroupV1 {
			// No CLONE_INTO_CGROUP on v1: join right after the fork.
			for _, f := range t.cg.procsFiles() {
				_ = os.WriteFile(f, []byte(strconv.Itoa(cmd.Process.Pid)), 0)
			}
		}
		return nil
	})
}

// startInTask starts cmd from a new OS thread that has joined the task
// process's namespaces and dropped every capability outside the task's
// bounding set. The thread is never unlocked, so the Go runtime ends it
// with the goroutine rather than reuse it outside the task.
func startInTask(pid int, bounding uint64, cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- enterAndStart(pid, bounding, cmd)
	}()
	return <-errc
}

func enterAndStart(pid int, bounding uint64, cmd *exec.Cmd) error {
	fds := make([]int, 0, len(taskNamespaces))
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, ns := range taskNamespaces {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/%s", pid, ns.name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open the task's %s namespace: %w", ns.name, err)
		}
		fds = append(fds, fd)
	}
	// Joining a mount namespace needs a filesystem context (root, cwd)
	// of this thread's own; Go's threads share one.
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fmt.Errorf("unshare fs: %w", err)
	}
	for i, ns := range taskNamespaces {
		if err := unix.Setns(fds[i], ns.flag); err != nil {
			return fmt.Errorf("join the task's %s namespace: %w", ns.name, err)
		}
	}
	if err := dropBounding(bounding); err != nil {
		return err
	}
	return cmd.Start()
}

// dropBounding keeps only the capabilities in keep (a CapBnd mask) in
// this thread's bounding set and sets no_new_privs.
func dropBounding(keep uint64) error {
	for c := 0; c <= lastCap(); c++ {
		if c < 64 && keep&(1<<c) != 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

// boundingSet reads a process's capability bounding set (CapBnd).
func boundingSet(pid int) (uint64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("process %d: no CapBnd in its status", pid)
}

func credential(uid, gid string) (*syscall.Credential, error) {
	u, err := strconv.ParseUint(uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("task uid %q: %w", uid, err)
	}
	g, err := strconv.ParseUint(gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("task gid %q: %w", gid, err)
	}
	return &syscall.Credential{Uid: uint32(u), Gid: uint32(g), NoSetGroups: false}, nil
}

// joinCgroupAtFork opens the task's cgroup v2 directory, so the exec'd
// process is created inside it (clone3 CLONE_INTO_CGROUP) and never runs
// outside the task's limits. On cgroup v1, or without a cgroup, it is nil.
func joinCgroupAtFork(cg *cgroup) *os.File {
	if cg == nil || cg.Version != CgroupV2 {
		return nil
	}
	dir := cg.Paths["unified"]
	if dir == "" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	return f
}
