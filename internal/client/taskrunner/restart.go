package taskrunner

import (
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// restartDecision is what to do after a task exits.
type restartDecision struct {
	restart bool
	delay   time.Duration
	failed  bool   // when not restarting: the task failed
	reason  string // for the Restarting / Not Restarting event
}

// restartTracker applies a restart block: at most Attempts restarts per
// Interval, Delay between them; past that, mode fail gives up and mode
// delay waits for the interval to end and starts counting again.
type restartTracker struct {
	policy     structs.RestartPolicy
	oneShot    bool // exits 0 for good: batch jobs and non-sidecar hooks
	count      int
	windowFrom time.Time
}

func newRestartTracker(p *structs.RestartPolicy, jobType string, task *structs.Task) *restartTracker {
	rt := &restartTracker{policy: structs.RestartPolicy{Mode: structs.RestartPolicyModeFail}}
	if p != nil {
		rt.policy = *p
	}
	rt.oneShot = jobType == structs.JobTypeBatch || jobType == structs.JobTypeSysBatch ||
		task.Lifecycle != nil && task.Lifecycle.Hook != "" && !task.Lifecycle.Sidecar
	return rt
}

// onExit decides after an exit at now.
func (rt *restartTracker) onExit(now time.Time, res *drivers.ExitResult) restartDecision {
	if res.Successful() && rt.oneShot {
		return restartDecision{reason: "task completed successfully"}
	}
	if rt.windowFrom.IsZero() || now.Sub(rt.windowFrom) >= rt.policy.Interval {
		rt.windowFrom, rt.count = now, 0
	}
	rt.count++
	if rt.count <= rt.policy.Attempts {
		return restartDecision{restart: true, delay: rt.policy.Delay, reason: "Restart within policy"}
	}
	if rt.policy.Mode == structs.RestartPolicyModeDelay {
		wait := rt.windowFrom.Add(rt.policy.Interval).Sub(now)
		if wait < rt.policy.Delay {
			wait = rt.policy.Delay
		}
		rt.windowFrom, rt.count = time.Time{}, 0
		return restartDecision{restart: true, delay: wait, reason: "Exceeded allowed attempts, applying a delay"}
	}
	return restartDecision{failed: true, reason: fmt.Sprintf("Exceeded allowed attempts %d in interval %v and mode is %q",
		rt.policy.Attempts, rt.policy.Interval, rt.policy.Mode)}
}
