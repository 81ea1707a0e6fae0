package allocrunner

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// newChecker builds the checker for the alloc's service checks, or nil
// when it has none this client runs. Check changes wake the runner so
// deployment health is re-judged at once.
func (r *Runner) newChecker(a *structs.Allocation) *checks.Checker {
	defs := checks.FromAlloc(a)
	if len(defs) == 0 {
		return nil
	}
	return checks.New(checks.Config{Clock: r.clock, OnChange: r.notify, Exec: r.execInTask, Restart: r.restartUnhealthy}, defs)
}

// execInTask runs a script check's command in the task through its
// driver's exec, collecting stdout and stderr together.
func (r *Runner) execInTask(ctx context.Context, task string, cmd []string) (int, string, error) {
	tr := r.Task(task)
	if tr == nil {
		return 0, "", fmt.Errorf("task %q not found in the alloc", task)
	}
	out := &drivers.CappedOutput{Limit: checks.MaxOutputBytes}
	code, err := tr.Exec(ctx, &drivers.ExecRequest{Command: cmd, Stdin: strings.NewReader(""), Stdout: out, Stderr: out})
	return code, out.String(), err
}

// restartUnhealthy is check_restart's action: restart the task, counting
// against its restart policy.
func (r *Runner) restartUnhealthy(task, reason string) {
	tr := r.Task(task)
	if tr == nil {
		r.logger.Warn("check_restart names no task of the alloc", "task", task)
		return
	}
	if err := tr.RestartUnhealthy(reason); err != nil {
		r.logger.Debug("check_restart: task not restarted", "task", task, "error", err)
	}
}

// startChecks starts the checks once every long-running task runs: before
// that they could only fail, and a first result right when the tasks come
// up keeps health from waiting a whole interval.
func (r *Runner) startChecks(vs []view) {
	r.mu.Lock()
	c, stopping := r.checker, r.stopping
	r.mu.Unlock()
	if c == nil || stopping || c.Started() {
		return
	}
	if allRunning, _, _ := healthInputs(vs); allRunning {
		c.Start()
	}
}

// stopChecks ends the checks; results stay readable.
func (r *Runner) stopChecks() {
	r.mu.Lock()
	c := r.checker
	r.mu.Unlock()
	if c != nil {
		c.Stop()
	}
}

// updateChecks replaces the checker when an in-place update changed the
// checks (or the ports they target); the new one starts like the first.
// Called with r.mu held.
func (r *Runner) updateChecks(a *structs.Allocation) {
	var old []checks.Check
	if r.checker != nil {
		old = r.checker.Checks()
	}
	if reflect.DeepEqual(old, checks.FromAlloc(a)) {
		return
	}
	if r.checker != nil {
		r.checker.Stop()
	}
	r.checker = r.newChecker(a)
}

// CheckResults returns the latest result of each of the alloc's service
// checks (nil when it has none). The alloc's client-side fields have no
// place for them, so they are not reported to the servers.
func (r *Runner) CheckResults() []checks.Result {
	r.mu.Lock()
	c := r.checker
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Snapshot()
}

// checkSnapshot is what health is judged on; called with r.mu held.
func (r *Runner) checkSnapshot() []checks.Result {
	if r.checker == nil {
		return nil
	}
	return r.checker.Snapshot()
}
