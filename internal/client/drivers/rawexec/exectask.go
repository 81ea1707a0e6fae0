package rawexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ExecTask implements drivers.Execer: the command runs on the host, as
// the task does, with the task's environment and working directory.
func (d *Driver) ExecTask(ctx context.Context, taskID string, req *drivers.ExecRequest) (int, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return 0, err
	}
	if t.exit.Exited() {
		return 0, drivers.ErrTaskGone
	}
	env, err := drivers.ProcessEnv(t.state.PID)
	if err != nil {
		return 0, fmt.Errorf("read the task's environment: %w", err)
	}
	dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", t.state.PID))
	if err != nil {
		return 0, fmt.Errorf("read the task's directory: %w", err)
	}
	cmd := exec.CommandContext(ctx, drivers.LookPathIn(req.Command[0], env), req.Command[1:]...)
	cmd.Env, cmd.Dir = env, dir
	return drivers.RunExec(cmd, req)
}
