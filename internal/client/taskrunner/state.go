package taskrunner

import (
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// update applies f to the state under the lock, then persists the result
// and tells the alloc runner. Persisting happens outside the lock: a
// bbolt commit fsyncs.
func (tr *TaskRunner) update(f func(ts *structs.TaskState)) {
	tr.mu.Lock()
	f(tr.state)
	snap := tr.state.Copy()
	tr.mu.Unlock()
	if tr.cfg.Store != nil {
		if err := tr.cfg.Store.PutTaskState(tr.allocID, tr.name, snap); err != nil {
			tr.logger.Error("persist task state", "error", err)
		}
	}
	tr.cfg.OnChange()
}

// emit records an event, optionally changing the state with it.
func (tr *TaskRunner) emit(ev *structs.TaskEvent) {
	tr.update(func(ts *structs.TaskState) { ts.Events = appendEvent(ts.Events, ev) })
}

// EmitEvent lets the alloc runner add an event (e.g. Sibling Task Failed).
func (tr *TaskRunner) EmitEvent(ev *structs.TaskEvent) { tr.emit(ev) }

func (tr *TaskRunner) setHandle(h *drivers.TaskHandle) {
	tr.mu.Lock()
	tr.handle = h
	tr.mu.Unlock()
	if tr.cfg.Store != nil {
		if err := tr.cfg.Store.PutTaskHandle(tr.allocID, tr.name, h); err != nil {
			tr.logger.Error("persist task handle", "error", err)
		}
	}
}

// markRunning records a start (or a re-attach).
func (tr *TaskRunner) markRunning(ev *structs.TaskEvent) {
	now := tr.clock.Now()
	tr.update(func(ts *structs.TaskState) {
		ts.State = structs.TaskStateRunning
		if ts.StartedAt.IsZero() {
			ts.StartedAt = now
		}
		if ev != nil {
			ts.Events = appendEvent(ts.Events, ev)
		}
	})
}

// markDead ends the task for good: the driver forgets it, the handle is
// dropped, logs are flushed and closed.
func (tr *TaskRunner) markDead(failed bool, ev *structs.TaskEvent) {
	tr.release()
	now := tr.clock.Now()
	tr.update(func(ts *structs.TaskState) {
		if ev != nil {
			ts.Events = appendEvent(ts.Events, ev)
		}
		ts.State = structs.TaskStateDead
		ts.Failed = ts.Failed || failed
		ts.FinishedAt = now
	})
	tr.finish()
}

// release lets go of what the task holds in the driver and of its logs.
func (tr *TaskRunner) release() {
	tr.mu.Lock()
	logs := tr.logs
	tr.logs = nil
	hadHandle := tr.handle != nil
	tr.mu.Unlock()
	logs.stop()
	if hadHandle {
		tr.setHandle(nil)
	}
	if d, err := tr.cfg.Drivers.Get(tr.Task().Driver); err == nil {
		_ = d.Destroy(tr.taskID, true)
	}
}

func (tr *TaskRunner) finish() {
	tr.doneOnce.Do(func() { close(tr.doneCh) })
}

// failWith ends the task as failed with a failing event of typ.
func (tr *TaskRunner) failWith(typ, msg string) {
	tr.logger.Warn("task failed", "reason", typ, "error", msg)
	tr.markDead(true, failing(NewEvent(tr.clock.Now(), typ, msg)))
}
