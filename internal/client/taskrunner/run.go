package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// outcome is why waiting on a running task ended.
type outcome int

const (
	outExited outcome = iota
	outKilled
	outRestart
	outUnhealthy // restarted by check_restart: counts against the policy
	outShutdown
)

// restartRequest asks the running task to restart; a failure restart
// (check_restart) counts against the restart policy, a user's or a
// template's does not.
type restartRequest struct {
	ev      *structs.TaskEvent
	failure bool
}

// Run drives the task until it is dead for good or the runner shuts
// down. The alloc runner calls it (in a goroutine) when the task's
// lifecycle phase begins.
func (tr *TaskRunner) Run() {
	tr.mu.Lock()
	if tr.runCalled {
		tr.mu.Unlock()
		return
	}
	tr.runCalled = true
	dead := tr.state.State == structs.TaskStateDead
	tr.mu.Unlock()
	if dead {
		tr.finish()
		return
	}
	drv, err := tr.cfg.Drivers.Get(tr.Task().Driver)
	if err != nil {
		tr.failWith(EventDriverFailure, fmt.Sprintf("failed to get driver %q: %v", tr.Task().Driver, err))
		return
	}
	tr.loop(drv, tr.recover(drv))
}

// loop starts (unless attached already), waits, and restarts the task.
func (tr *TaskRunner) loop(drv drivers.Driver, attached bool) {
	for {
		if !attached {
			if tr.killed() {
				tr.markDead(false, nil)
				return
			}
			if !tr.start(drv) {
				return
			}
		}
		attached = false
		res, why := tr.waitTask(drv)
		switch why {
		case outShutdown:
			tr.finish()
			return
		case outKilled:
			tr.markDead(false, nil)
			return
		case outRestart:
			continue
		case outUnhealthy:
			if !tr.applyRestartPolicy(res) {
				return
			}
			continue
		}
		if !tr.afterExit(drv, res) {
			return
		}
	}
}

// recover re-attaches to a task an earlier client started. A task that is
// gone is started again without counting against the restart policy:
// it did not fail, the client was away.
func (tr *TaskRunner) recover(drv drivers.Driver) bool {
	tr.mu.Lock()
	h := tr.handle
	tr.mu.Unlock()
	if h == nil {
		return false
	}
	if err := drv.Recover(h); err != nil {
		tr.logger.Info("task not recovered; starting it again", "error", err)
		tr.setHandle(nil)
		_ = drv.Destroy(tr.taskID, true)
		now := tr.clock.Now()
		tr.update(func(ts *structs.TaskState) {
			ts.State = structs.TaskStatePending
			ts.Events = appendEvent(ts.Events, NewEvent(now, EventRestarting, "Task was not running after a client restart: "+err.Error()))
		})
		return false
	}
	if err := tr.openLogs(); err != nil {
		tr.logger.Warn("resume task logs", "error", err)
	}
	td := tr.cfg.AllocDir.TaskDir(tr.name)
	tr.startTaskAPI(td.SecretsDir)
	// The task keeps running, but this client holds none of its tokens:
	// sign them again (rewriting the files) and resume their renewal.
	if err := tr.fetchIdentity(tr.Task(), td); err != nil {
		tr.logger.Warn("re-signing the workload identities of a re-attached task", "error", err)
	}
	tr.markRunning(nil)
	return true
}

// waitTask blocks until the task exits or the runner is told otherwise.
func (tr *TaskRunner) waitTask(drv drivers.Driver) (*drivers.ExitResult, outcome) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := drv.Wait(ctx, tr.taskID)
	if err != nil {
		return &drivers.ExitResult{Err: fmt.Errorf("wait on task: %w", err)}, outExited
	}
	select {
	case res, ok := <-ch:
		if !ok || res == nil {
			res = &drivers.ExitResult{Err: errors.New("driver closed the wait channel without a result")}
		}
		return res, outExited
	case <-tr.killCh:
		switch res, why := tr.shutdownDelay(ch); why {
		case outShutdown:
			return nil, outShutdown
		case outExited: // it ended by itself during the delay
			tr.recordExit(drv, res)
			return nil, outKilled
		}
		tr.stopTask(drv, ch)
		return nil, outKilled
	case req := <-tr.restartCh:
		tr.emit(req.ev)
		tr.stopTask(drv, ch)
		if req.failure {
			return &drivers.ExitResult{ExitCode: 1, Err: errors.New(req.ev.DisplayMessage)}, outUnhealthy
		}
		tr.restartedByUser(drv)
		return nil, outRestart
	case <-tr.shutdownCh:
		return nil, outShutdown
	}
}

// afterExit records the exit and applies the restart policy; it reports
// whether to start the task again.
func (tr *TaskRunner) afterExit(drv drivers.Driver, res *drivers.ExitResult) bool {
	tr.recordExit(drv, res)
	return tr.applyRestartPolicy(res)
}

// recordExit records how the task ended and lets the driver forget it.
func (tr *TaskRunner) recordExit(drv drivers.Driver, res *drivers.ExitResult) {
	tr.logsFlush()
	tr.emit(terminatedEvent(tr.clock.Now(), res))
	tr.setHandle(nil)
	_ = drv.Destroy(tr.taskID, true)
}

// applyRestartPolicy decides, after the task ended with res, whether it
// starts again (after the policy's delay) or is dead for good.
func (tr *TaskRunner) applyRestartPolicy(res *drivers.ExitResult) bool {
	if tr.killed() {
		tr.markDead(false, nil)
		return false
	}
	d := tr.restarts.onExit(tr.clock.Now(), res)
	if !d.restart {
		if d.failed {
			tr.markDead(true, failing(NewEvent(tr.clock.Now(), EventNotRestarting, d.reason)))
		} else {
			tr.markDead(false, nil)
		}
		return false
	}
	return tr.delayRestart(d)
}

// delayRestart records a Restarting event and waits out the delay on the
// clock; a kill meanwhile ends the task, a shutdown leaves it pending.
func (tr *TaskRunner) delayRestart(d restartDecision) bool {
	now := tr.clock.Now()
	ev := NewEvent(now, EventRestarting, fmt.Sprintf("%s; restarting in %v", d.reason, d.delay))
	ev.RestartReason = d.reason
	ev.Details["start_delay"] = fmt.Sprint(int64(d.delay))
	tr.update(func(ts *structs.TaskState) {
		ts.State = structs.TaskStatePending
		ts.Restarts++
		ts.LastRestart = now
		ts.Events = appendEvent(ts.Events, ev)
	})
	if d.delay <= 0 {
		return !tr.killed()
	}
	select {
	case <-tr.clock.After(d.delay):
		return true
	case <-tr.killCh:
		tr.markDead(false, nil)
		return false
	case <-tr.shutdownCh:
		tr.finish()
		return false
	}
}

func terminatedEvent(now time.Time, res *drivers.ExitResult) *structs.TaskEvent {
	msg := fmt.Sprintf("Exit Code: %d", res.ExitCode)
	if res.Signal != 0 {
		msg += fmt.Sprintf(", Signal: %d", res.Signal)
	}
	if res.OOMKilled {
		msg += ", OOM Killed"
	}
	if res.Err != nil {
		msg += ", Exit Message: " + res.Err.Error()
	}
	ev := &structs.TaskEvent{Type: EventTerminated, Time: now.UnixNano(), DisplayMessage: msg, Message: msg,
		ExitCode: res.ExitCode, Signal: res.Signal, Details: map[string]string{
			"exit_code": fmt.Sprint(res.ExitCode), "signal": fmt.Sprint(res.Signal), "oom_killed": fmt.Sprint(res.OOMKilled)}}
	return ev
}
