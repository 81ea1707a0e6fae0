package taskrunner

import (
	"errors"
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// shutdownDelay waits out the task's shutdown_delay once it was told to
// die, before its kill signal; the alloc runner has taken the task's
// services out of the catalog before the kill, so clients stop sending it
// work while it still answers. Nomad's order (task runner handleKill):
// services deregistered, a "Waiting for shutdown delay" event, the wait,
// then the kill. A delay skipped (alloc stop -no-shutdown-delay, or a
// client destroying its allocs) records "Skipping shutdown delay" instead,
// as Nomad does. It reports outKilled when the kill should go ahead,
// outExited (with the result) when the task ended by itself meanwhile, and
// outShutdown when the runner shut down (the task keeps running for the
// next client). Unlike Nomad, which marks the waiting task pending, the
// task stays running: it does run, and a pending task would make the
// alloc's client status pending while it drains.
func (tr *TaskRunner) shutdownDelay(ch <-chan *drivers.ExitResult) (*drivers.ExitResult, outcome) {
	tr.mu.Lock()
	delay, skip := tr.task.ShutdownDelay, NoShutdownDelay(tr.alloc)
	tr.mu.Unlock()
	if delay <= 0 {
		return nil, outKilled
	}
	select {
	case <-tr.skipDelayCh:
		skip = true
	default:
	}
	if skip {
		tr.emit(NewEvent(tr.clock.Now(), EventSkippingShutdownDelay, fmt.Sprintf("Skipping shutdown_delay of %v before killing the task.", delay)))
		return nil, outKilled
	}
	tr.emit(NewEvent(tr.clock.Now(), EventWaitingShutdownDelay, fmt.Sprintf("Waiting for shutdown_delay of %v before killing the task.", delay)))
	passed := make(chan struct{})
	timer := tr.clock.AfterFunc(delay, func() { close(passed) })
	defer timer.Stop()
	select {
	case <-passed:
	case <-tr.skipDelayCh:
	case res, ok := <-ch:
		if !ok || res == nil {
			res = &drivers.ExitResult{Err: errors.New("driver closed the wait channel without a result")}
		}
		return res, outExited
	case <-tr.shutdownCh:
		return nil, outShutdown
	}
	return nil, outKilled
}

// SkipShutdownDelay makes a kill waiting out the task's shutdown_delay go
// ahead at once, and a later kill not wait. It never blocks.
func (tr *TaskRunner) SkipShutdownDelay() {
	tr.skipDelayOnce.Do(func() { close(tr.skipDelayCh) })
}

// NoShutdownDelay reports whether the server asked for the alloc to stop
// without its shutdown delays (`alloc stop -no-shutdown-delay`).
func NoShutdownDelay(a *structs.Allocation) bool {
	return a != nil && a.DesiredTransition.NoShutdownDelay != nil && *a.DesiredTransition.NoShutdownDelay
}
