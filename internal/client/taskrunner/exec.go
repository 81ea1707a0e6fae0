package taskrunner

import (
	"context"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// ErrExecUnsupported is returned by Exec for a task whose driver cannot
// run commands inside its tasks.
var ErrExecUnsupported = fmt.Errorf("the task's driver does not support exec")

// Exec runs a command inside the running task's environment (`alloc
// exec`) and returns its exit code.
func (tr *TaskRunner) Exec(ctx context.Context, req *drivers.ExecRequest) (int, error) {
	if tr.State().State != structs.TaskStateRunning {
		return 0, ErrNotRunning
	}
	drv, err := tr.cfg.Drivers.Get(tr.Task().Driver)
	if err != nil {
		return 0, err
	}
	execer, ok := drv.(drivers.Execer)
	if !ok {
		return 0, fmt.Errorf("%w (driver %q)", ErrExecUnsupported, drv.Name())
	}
	return execer.ExecTask(ctx, tr.taskID, req)
}
