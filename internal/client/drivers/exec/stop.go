package exec

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// exitGrace is how long Stop waits for the exit to be recorded once the
// executor has been SIGKILLed.
const exitGrace = 5 * time.Second

// Stop implements drivers.Driver. The signal goes to the executor, which
// forwards it to the task's process group; SIGKILL goes to the executor
// itself, and as PID 1 of the task's namespace its death takes every
// process of the task with it.
func (d *Driver) Stop(taskID string, timeout time.Duration, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return nil
	}
	exited, err := drivers.SignalThenWait(sig, timeout, t.exit.Done(), func(s syscall.Signal) error { return d.signalExecutor(t, s) })
	if exited || err != nil {
		return err
	}
	return d.kill(t)
}

// kill SIGKILLs the executor and anything left in the cgroup, then waits
// for the exit to be recorded.
func (d *Driver) kill(t *task) error {
	_ = d.signalExecutor(t, syscall.SIGKILL)
	t.cg.killAll()
	return drivers.AwaitKill(t.exit.Done(), exitGrace)
}

func (d *Driver) signalExecutor(t *task, sig syscall.Signal) error {
	err := syscall.Kill(t.state.ExecutorPID, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Signal implements drivers.Driver.
func (d *Driver) Signal(taskID string, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return drivers.ErrTaskGone
	}
	return d.signalExecutor(t, sig)
}

// Destroy implements drivers.Driver: it removes the task's cgroup and
// exit file.
func (d *Driver) Destroy(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if !t.exit.Exited() {
		if !force {
			return drivers.ErrTaskRunning
		}
		if err := d.kill(t); err != nil {
			return err
		}
	}
	if err := t.cg.destroy(); err != nil {
		return err
	}
	_ = os.Remove(t.state.ExitFile)
	d.tasks.Remove(taskID)
	return nil
}

// Stats implements drivers.Driver from the task's cgroup.
func (d *Driver) Stats(_ context.Context, taskID string) (*drivers.TaskStats, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	if t.exit.Exited() {
		return nil, drivers.ErrTaskGone
	}
	return t.cg.stats(), nil
}
