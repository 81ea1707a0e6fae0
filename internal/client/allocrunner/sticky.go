package allocrunner

import (
	"context"

	"github.com/drover-project/drover/internal/client/allocdir"
)

// PreviousAlloc is the alloc a new one replaces, for an ephemeral_disk
// that is sticky or migrates. On the same node, Dir is its tree and Done
// closes once its tasks are dead. On another node (migrate = true), Fetch
// waits for it to stop and copies its data into dest (tasks: the new
// alloc's task names) through that node's agent; Dir and Done are nil.
type PreviousAlloc struct {
	ID    string
	Dir   *allocdir.AllocDir
	Done  <-chan struct{}
	Fetch func(ctx context.Context, dest *allocdir.AllocDir, tasks []string) error
}

// takePreviousData waits for the previous alloc's tasks to die, then
// moves its alloc/data and each task's local/ into this alloc, before
// any task starts (Nomad's sticky ephemeral_disk on one node); for a
// previous alloc on another node it runs Fetch instead (migrate). Both
// are best effort, as in Nomad: a failure is logged and the tasks start
// on empty directories. A stop of this alloc while it waits ends the wait
// (nothing moves; the loop then stops the tasks that never started). It
// returns false when the runner was shut down while waiting.
func (r *Runner) takePreviousData() bool {
	prev := r.cfg.Previous
	if prev == nil || r.cfg.Restore != nil {
		return true
	}
	var tasks []string
	if tg := r.alloc.Group(); tg != nil {
		for _, t := range tg.Tasks {
			if t != nil {
				tasks = append(tasks, t.Name)
			}
		}
	}
	done := prev.Done
	var fetchErr chan error
	cancel := func() {}
	if prev.Fetch != nil {
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		fetchErr = make(chan error, 1)
		go func() { fetchErr <- prev.Fetch(ctx, r.allocDir, tasks) }()
		done = nil
	}
	defer cancel()
	for waiting := done != nil || fetchErr != nil; waiting; {
		select {
		case <-done:
			waiting = false
		case err := <-fetchErr:
			if err != nil {
				r.logger.Warn("migrating ephemeral disk: previous alloc's data not copied; the tasks start on empty directories",
					"previous_alloc", prev.ID, "error", err)
			} else {
				r.logger.Info("migrating ephemeral disk: copied the previous alloc's data", "previous_alloc", prev.ID)
			}
			return true
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
	if err := r.allocDir.MoveFrom(prev.Dir, tasks); err != nil {
		r.logger.Warn("sticky ephemeral disk: previous alloc's data not moved", "previous_alloc", prev.ID, "error", err)
		return true
	}
	r.logger.Info("sticky ephemeral disk: moved the previous alloc's data", "previous_alloc", prev.ID)
	return true
}
