package allocrunner

import (
	"context"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// Update hands the runner the server's newer version of the alloc: a stop
// or evict kills it; anything else is an in-place update (the tasks pick
// up the new definition on their next start; a new deployment resets the
// health decision).
func (r *Runner) Update(alloc *structs.Allocation) {
	r.mu.Lock()
	old := r.alloc
	r.alloc = alloc
	if r.malformed == "" {
		r.updateChecks(alloc)
	}
	if alloc.DeploymentID != old.DeploymentID && r.malformed == "" {
		r.health.stop()
		r.health = newHealthTracker(alloc, nil, r.checker != nil)
	}
	trs := make([]*taskrunner.TaskRunner, 0, len(r.tasks))
	for _, tr := range r.tasks {
		trs = append(trs, tr)
	}
	r.mu.Unlock()
	for _, tr := range trs {
		tr.Update(alloc)
	}
	if taskrunner.NoShutdownDelay(alloc) {
		// alloc stop -no-shutdown-delay: a delay already running ends now.
		r.skipShutdownDelays()
	}
	if alloc.ServerTerminalStatus() {
		r.Stop()
		return
	}
	r.notify()
}

// Stop kills every task (poststop tasks then run); Done closes after.
// The group's services leave the catalog first, and the group's and each
// task's shutdown_delay pass before the kill signals (shutdown_delay.go).
// Stopping again changes nothing.
func (r *Runner) Stop() {
	r.beginStop(nil)
	r.notify()
}

// StopNow is Stop without waiting for any shutdown_delay, also one that
// is already running: for a client that is going away (a dev agent's
// shutdown) or an alloc being destroyed, whose stop must not wait for
// traffic to drain.
func (r *Runner) StopNow() {
	r.skipShutdownDelays()
	r.Stop()
}

// Shutdown stops the runner without stopping its tasks, which keep
// running for the next client to re-attach.
func (r *Runner) Shutdown() {
	r.shutOnce.Do(func() { close(r.shutdownCh) })
	r.runOnce.Do(func() { close(r.loopDone) }) // never ran: nothing to wait for
	<-r.loopDone
	r.stopDelayTimer()
	r.mu.Lock()
	r.health.stop()
	r.mu.Unlock()
	r.stopChecks()
	for _, tr := range r.Tasks() {
		tr.Shutdown()
	}
}

// Destroy stops the alloc without its shutdown delays, waits for its
// tasks to die, and removes its directory and persisted state.
func (r *Runner) Destroy() error {
	r.Run()
	r.StopNow()
	<-r.doneCh
	r.Shutdown()
	if r.cfg.Store != nil {
		if err := r.cfg.Store.DeleteAlloc(r.id); err != nil {
			return err
		}
	}
	return r.allocDir.Destroy()
}

func (r *Runner) taskStats() map[string]*drivers.TaskStats {
	out := map[string]*drivers.TaskStats{}
	for _, tr := range r.Tasks() {
		if s, err := tr.Stats(context.Background()); err == nil {
			out[tr.Name()] = s
		}
	}
	return out
}
