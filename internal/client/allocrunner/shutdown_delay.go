package allocrunner

import (
	"time"

	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// groupDelayOver reports whether the group's shutdown_delay has passed, so
// the stopping alloc's tasks may be killed. The first call with a task
// running starts the delay on the runner's clock, whose timer wakes the
// loop when it ends; with no task running there is nothing to drain and
// no delay. Nomad's group service hook waits the same way, between
// deregistering the group's services and killing its tasks, and emits no
// task event for it.
func (r *Runner) groupDelayOver(running bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.delayOver {
		return true
	}
	if r.delayTimer == nil {
		d := groupShutdownDelay(r.alloc)
		if d <= 0 || !running || r.skipDelay {
			r.delayOver = true
			return true
		}
		r.logger.Debug("waiting for the group's shutdown_delay before killing its tasks", "shutdown_delay", d)
		r.delayTimer = r.clock.AfterFunc(d, r.endGroupDelay)
	}
	return false
}

func (r *Runner) endGroupDelay() {
	r.mu.Lock()
	r.delayOver = true
	r.mu.Unlock()
	r.notify()
}

// groupShutdownDelay is the group's shutdown_delay, 0 when unset or when
// the server asked for a stop without delays.
func groupShutdownDelay(a *structs.Allocation) time.Duration {
	tg := a.Group()
	if tg == nil || tg.ShutdownDelay == nil || taskrunner.NoShutdownDelay(a) {
		return 0
	}
	return *tg.ShutdownDelay
}

// skipShutdownDelays ends the group's shutdown_delay and every task's, or
// keeps them from starting: a stop without delays was asked for, or the
// alloc is being destroyed.
func (r *Runner) skipShutdownDelays() {
	r.mu.Lock()
	r.skipDelay, r.delayOver = true, true
	t := r.delayTimer
	trs := make([]*taskrunner.TaskRunner, 0, len(r.tasks))
	for _, tr := range r.tasks {
		trs = append(trs, tr)
	}
	r.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	for _, tr := range trs {
		tr.SkipShutdownDelay()
	}
	r.notify()
}

// stopDelayTimer stops the group delay's timer (the runner is shutting down).
func (r *Runner) stopDelayTimer() {
	r.mu.Lock()
	t := r.delayTimer
	r.mu.Unlock()
	if t != nil {
		t.Stop()
	}
}
