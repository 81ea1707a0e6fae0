package allocrunner

import (
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// DescMaxRunExceeded is the client description of an alloc stopped by its
// group's max_run_duration (Nomad's wording).
const DescMaxRunExceeded = "allocation exceeded max_run_duration"

// armMaxRun starts the group's max_run_duration timer (batch and sysbatch
// jobs only): it runs from the alloc runner's start whatever the tasks
// do, and when it fires the tasks are stopped as by a server stop
// (services leave, shutdown_delay, kill) and the alloc reports complete.
// A restarted client starts the timer again from its own start.
func (r *Runner) armMaxRun() {
	a := r.alloc
	tg := a.Group()
	if tg == nil || tg.MaxRunDuration == nil || *tg.MaxRunDuration <= 0 || a.Job == nil ||
		(a.Job.Type != structs.JobTypeBatch && a.Job.Type != structs.JobTypeSysBatch) {
		return
	}
	t := r.clock.AfterFunc(*tg.MaxRunDuration, r.exceedMaxRun)
	r.mu.Lock()
	r.maxRunTimer = t
	r.mu.Unlock()
}

func (r *Runner) exceedMaxRun() {
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		return
	}
	r.maxRunExceeded = true
	r.mu.Unlock()
	now := r.clock.Now()
	r.beginStop(func() *structs.TaskEvent {
		return taskrunner.NewEvent(now, taskrunner.EventKilling, "Task killed: "+DescMaxRunExceeded)
	})
	r.notify()
}

func (r *Runner) stopMaxRunTimer() {
	r.mu.Lock()
	t := r.maxRunTimer
	r.mu.Unlock()
	if t != nil {
		t.Stop()
	}
}

// maxRunStatus is the client status once max_run_duration stopped the
// alloc: complete with Nomad's description when every task is dead.
func (r *Runner) maxRunStatus(status, desc string) (string, string) {
	r.mu.Lock()
	exceeded := r.maxRunExceeded
	r.mu.Unlock()
	if exceeded && (status == structs.AllocClientStatusComplete || status == structs.AllocClientStatusFailed) {
		return structs.AllocClientStatusComplete, DescMaxRunExceeded
	}
	return status, desc
}
