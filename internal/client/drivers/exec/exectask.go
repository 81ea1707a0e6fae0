package exec

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
)

// nsenterPath is util-linux's nsenter, which joins another process's
// namespaces and root; exec sessions use it to enter a running task.
var nsenterPath = "nsenter"

// ExecTask implements drivers.Execer. The command enters the running
// task's namespaces and chroot as the task's user, with the task's
// environment, and joins the task's cgroup so its usage counts against
// the task's limits.
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
	args := []string{"--target", strconv.Itoa(pid), "--mount", "--uts", "--ipc", "--net", "--pid",
		"--root", "--wd", "--setuid", uid, "--setgid", gid, "--"}
	cmd := exec.CommandContext(ctx, nsenterPath, append(args, req.Command...)...)
	cmd.Env = env
	if f := joinCgroupAtFork(t.cg); f != nil {
		defer f.Close()
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
	}
	return drivers.RunExec(cmd, req)
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
