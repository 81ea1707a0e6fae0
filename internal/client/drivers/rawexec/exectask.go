package rawexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ExecTask implements drivers.Execer: the command runs on the host, as
// the task does, with the task process's environment, working directory
// and user (the task is the supervisor's child).
func (d *Driver) ExecTask(ctx context.Context, taskID string, req *drivers.ExecRequest) (int, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return 0, err
	}
	pid, env, err := drivers.ExecTarget(t.state.PID, t.exit.Exited())
	if err != nil {
		return 0, err
	}
	dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return 0, fmt.Errorf("read the task's directory: %w", err)
	}
	cmd := exec.CommandContext(ctx, drivers.LookPathIn(req.Command[0], env), req.Command[1:]...)
	cmd.Env, cmd.Dir = env, dir
	if cred, err := taskCredential(pid); err != nil {
		return 0, err
	} else if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return drivers.RunExec(cmd, req)
}

// taskCredential is the task's user when it differs from the agent's.
func taskCredential(pid int) (*syscall.Credential, error) {
	uid, gid, err := drivers.ProcessIDs(pid)
	if err != nil {
		return nil, err
	}
	u, _ := strconv.Atoi(uid)
	g, _ := strconv.Atoi(gid)
	if u == os.Getuid() && g == os.Getgid() {
		return nil, nil
	}
	return &syscall.Credential{Uid: uint32(u), Gid: uint32(g)}, nil
}
