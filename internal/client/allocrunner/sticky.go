package allocrunner

import (
	"github.com/drover-project/drover/internal/client/allocdir"
)

// PreviousAlloc is the alloc a new one replaces on the same node, for a
// sticky ephemeral_disk: Done closes once its tasks are dead.
type PreviousAlloc struct {
	ID   string
	Dir  *allocdir.AllocDir
	Done <-chan struct{}
}

// takePreviousData waits for the previous alloc's tasks to die, then
// moves its alloc/data and each task's local/ into this alloc, before
// any task starts (Nomad's sticky ephemeral_disk on one node). The move
// is best effort, as in Nomad: a failure is logged and the tasks start on
// empty directories. A stop of this alloc while it waits ends the wait
// (nothing moves; the loop then stops the tasks that never started). It
// returns false when the runner was shut down while waiting.
func (r *Runner) takePreviousData() bool {
	prev := r.cfg.Previous
	if prev == nil || r.cfg.Restore != nil {
		return true
	}
	for waiting := prev.Done != nil; waiting; {
		select {
		case <-prev.Done:
			waiting = false
		case <-r.shutdownCh:
			return false
		case <-r.changeCh:
			r.mu.Lock()
			stopping := r.stopping || r.alloc.ServerTerminalStatus()
			r.mu.Unlock()
			if stopping {
				r.notify() // the loop's next step acts on the stop
				return true
			}
		}
	}
	var tasks []string
	if tg := r.alloc.Group(); tg != nil {
		for _, t := range tg.Tasks {
			if t != nil {
				tasks = append(tasks, t.Name)
			}
		}
	}
	if err := r.allocDir.MoveFrom(prev.Dir, tasks); err != nil {
		r.logger.Warn("sticky ephemeral disk: previous alloc's data not moved", "previous_alloc", prev.ID, "error", err)
		return true
	}
	r.logger.Info("sticky ephemeral disk: moved the previous alloc's data", "previous_alloc", prev.ID)
	return true
}
