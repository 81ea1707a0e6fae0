package allocrunner

import (
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// Run starts the alloc and returns at once; the runner's loop advances
// the lifecycle on every task change until all tasks are dead.
func (r *Runner) Run() {
	r.runOnce.Do(func() { go r.loop() })
}

func (r *Runner) loop() {
	defer close(r.loopDone)
	if !r.setup() {
		return
	}
	for {
		r.step()
		// Decide "all dead" before reporting: a task dying between a
		// report and the check would end the loop with the final state
		// (complete or failed) never reported. Dead tasks stay dead, so a
		// report after the check includes them; a change after the
		// report wakes the loop again.
		dead := r.allDead()
		r.report()
		if dead {
			r.teardownNetwork()
			r.doneOnce.Do(func() { close(r.doneCh) })
			return
		}
		select {
		case <-r.changeCh:
		case <-r.shutdownCh:
			return
		}
	}
}

// setup builds the shared directories; a malformed alloc or a directory
// that cannot be made fails every task with the reason.
func (r *Runner) setup() bool {
	if r.malformed != "" {
		r.logger.Warn("malformed alloc", "reason", r.malformed)
		r.failMalformed()
		return false
	}
	if err := r.allocDir.Build(); err != nil {
		for _, tr := range r.Tasks() {
			tr.Fail(taskrunner.EventSetupFailure, "failed to build alloc directory: "+err.Error())
		}
		return true
	}
	r.setupNetwork()
	return true
}

// failMalformed reports an alloc with no runnable task group as failed.
func (r *Runner) failMalformed() {
	now := r.clock.Now()
	ts := &structs.TaskState{State: structs.TaskStateDead, Failed: true, FinishedAt: now}
	ts.Events = []*structs.TaskEvent{taskrunner.NewEvent(now, taskrunner.EventFailedValidation, r.malformed)}
	ts.Events[0].FailsTask = true
	r.cfg.OnUpdate(&structs.Allocation{
		ID: r.id, NodeID: r.alloc.NodeID, JobID: r.alloc.JobID, Namespace: r.alloc.Namespace, TaskGroup: r.alloc.TaskGroup,
		ClientStatus: structs.AllocClientStatusFailed, ClientDescription: "invalid alloc: " + r.malformed,
		TaskStates: map[string]*structs.TaskState{r.alloc.TaskGroup: ts},
	})
	r.doneOnce.Do(func() { close(r.doneCh) })
}

// allDead reports whether every task is dead.
func (r *Runner) allDead() bool {
	for _, tr := range r.Tasks() {
		if tr.State().State != structs.TaskStateDead {
			return false
		}
	}
	return true
}
