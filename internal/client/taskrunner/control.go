package taskrunner

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// ErrNotRunning is returned by Restart and Signal for a task that is not
// running.
var ErrNotRunning = errors.New("task is not running")

// Kill stops the task for good; ev, when set, is recorded first (e.g.
// Sibling Task Failed). It does not wait: Done closes once the task is
// dead. A task that never started is marked dead right away.
func (tr *TaskRunner) Kill(ev *structs.TaskEvent) {
	first := false
	tr.killOnce.Do(func() {
		first = true
		close(tr.killCh)
	})
	if !first {
		return
	}
	if ev != nil {
		tr.emit(ev)
	}
	tr.mu.Lock()
	neverRan := !tr.runCalled
	tr.runCalled = true
	tr.mu.Unlock()
	if neverRan {
		tr.markDead(false, nil)
		return
	}
	// Unblock a driver Start in progress (the context is only used while
	// starting); stopTask handles a running task.
	tr.cancelRun()
}

// stopTask kills the running task with its kill_signal, escalating to
// SIGKILL after kill_timeout, and waits for its exit.
func (tr *TaskRunner) stopTask(drv drivers.Driver, ch <-chan *drivers.ExitResult) {
	task := tr.Task()
	timeout := task.KillTimeout
	if m := tr.cfg.MaxKillTimeout; m > 0 && timeout > m {
		timeout = m
	}
	ev := NewEvent(tr.clock.Now(), EventKilling, fmt.Sprintf("Sent interrupt. Waiting %v before force killing", timeout))
	ev.KillTimeout = timeout
	tr.emit(ev)
	if err := drv.Stop(tr.taskID, timeout, task.KillSignal); err != nil && !errors.Is(err, drivers.ErrTaskNotFound) {
		tr.logger.Warn("stop task", "error", err)
		_ = drv.Destroy(tr.taskID, true)
	}
	var res *drivers.ExitResult
	select {
	case res = <-ch:
	case <-tr.shutdownCh:
	}
	tr.logsFlush()
	killed := NewEvent(tr.clock.Now(), EventKilled, "Task successfully killed")
	if res != nil {
		killed.ExitCode, killed.Signal = res.ExitCode, res.Signal
	}
	tr.emit(killed)
	tr.setHandle(nil)
	_ = drv.Destroy(tr.taskID, true)
}

// restartedByUser records a restart that does not count against the
// restart policy.
func (tr *TaskRunner) restartedByUser(drivers.Driver) {
	now := tr.clock.Now()
	tr.update(func(ts *structs.TaskState) {
		ts.State = structs.TaskStatePending
		ts.Restarts++
		ts.LastRestart = now
		ts.Events = appendEvent(ts.Events, NewEvent(now, EventRestarting, "User requested restart"))
	})
}

// Restart kills and starts the running task again.
func (tr *TaskRunner) Restart() error {
	if tr.State().State != structs.TaskStateRunning || tr.killed() {
		return ErrNotRunning
	}
	select {
	case tr.restartCh <- restartRequest{ev: NewEvent(tr.clock.Now(), EventRestartSignal, "User requested task to restart")}:
	default: // a restart is already queued
	}
	return nil
}

// RestartUnhealthy restarts the running task because a check with
// check_restart kept failing; unlike Restart it counts against the
// restart policy, so a task that never gets healthy ends up failed.
func (tr *TaskRunner) RestartUnhealthy(reason string) error {
	if tr.State().State != structs.TaskStateRunning || tr.killed() {
		return ErrNotRunning
	}
	ev := NewEvent(tr.clock.Now(), EventRestartSignal, reason)
	ev.RestartReason = reason
	select {
	case tr.restartCh <- restartRequest{ev: ev, failure: true}:
	default: // a restart is already queued
	}
	return nil
}

// Signal sends a signal to the running task.
func (tr *TaskRunner) Signal(sig string) error {
	if tr.State().State != structs.TaskStateRunning {
		return ErrNotRunning
	}
	drv, err := tr.cfg.Drivers.Get(tr.Task().Driver)
	if err != nil {
		return err
	}
	if _, err := drivers.ParseSignal(sig); err != nil {
		return err
	}
	tr.emit(NewEvent(tr.clock.Now(), EventSignaling, "Task being sent signal "+sig))
	return drv.Signal(tr.taskID, sig)
}

// Stats samples the running task's usage.
func (tr *TaskRunner) Stats(ctx context.Context) (*drivers.TaskStats, error) {
	if tr.State().State != structs.TaskStateRunning {
		return nil, ErrNotRunning
	}
	drv, err := tr.cfg.Drivers.Get(tr.Task().Driver)
	if err != nil {
		return nil, err
	}
	return drv.Stats(ctx, tr.taskID)
}

// Update hands the runner a newer version of its alloc (an in-place
// update); the new task definition applies from the next start.
func (tr *TaskRunner) Update(alloc *structs.Allocation) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.alloc = alloc
	if tg := alloc.Group(); tg != nil {
		if t := tg.LookupTask(tr.name); t != nil {
			tr.task = t
		}
	}
}

// Shutdown stops the runner without touching the task, which keeps
// running for the next client to re-attach; it waits for Run to return.
func (tr *TaskRunner) Shutdown() {
	tr.shutOnce.Do(func() { close(tr.shutdownCh) })
	tr.cancelRun()
	tr.mu.Lock()
	ran := tr.runCalled
	tr.mu.Unlock()
	if ran {
		<-tr.doneCh
	}
	tr.mu.Lock()
	logs := tr.logs
	tr.logs = nil
	tr.mu.Unlock()
	logs.detach()
}

// Fail ends a task that has not started, as failed with an event of typ
// (the alloc could not be set up). A task already running is left alone.
func (tr *TaskRunner) Fail(typ, msg string) {
	tr.mu.Lock()
	ran := tr.runCalled
	tr.runCalled = true
	tr.mu.Unlock()
	if !ran {
		tr.failWith(typ, msg)
	}
}
