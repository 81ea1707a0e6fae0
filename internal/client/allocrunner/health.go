package allocrunner

import (
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Nomad's defaults for an update block that leaves them out.
const (
	defaultMinHealthyTime  = 10 * time.Second
	defaultHealthyDeadline = 5 * time.Minute
)

// healthTracker decides an alloc's deployment health, once per
// deployment: healthy once every long-running task has been running,
// without a restart, for min_healthy_time (with "checks" and a group that
// has checks, every check must also have been passing for that long);
// unhealthy when a task fails, or when healthy_deadline passes first.
type healthTracker struct {
	enabled      bool
	useChecks    bool
	deploymentID string
	canary       bool
	minHealthy   time.Duration
	deadline     time.Duration

	decided      *structs.AllocDeploymentStatus
	since        time.Time // when the tasks were last seen all running
	restarts     uint64
	due          time.Time // when timer fires
	timer        clock.Timer
	deadlineT    clock.Timer
	deadlinePast atomic.Bool // set by the deadline timer
}

// newHealthTracker builds the tracker for the alloc's deployment, with
// the group's update block; a service alloc outside a deployment is
// tracked too, with its migrate block (the group's, else the job's, else
// Nomad's defaults), as Nomad's client does: the node drainer waits for a
// migrated alloc's replacement to have its health before it migrates the
// next one. Other allocs outside a deployment get no health. hasChecks
// says whether the alloc has checks this client runs (without them
// "checks" falls back to the task states, as there is nothing else to
// wait for).
func newHealthTracker(a *structs.Allocation, restored *structs.AllocDeploymentStatus, hasChecks bool) *healthTracker {
	h := &healthTracker{deploymentID: a.DeploymentID}
	mode, minHealthy, deadline, ok := healthParams(a)
	if !ok {
		return h
	}
	h.enabled = true
	h.useChecks = hasChecks && (mode == structs.UpdateHealthCheckChecks || mode == "")
	h.minHealthy, h.deadline = minHealthy, deadline
	if h.minHealthy <= 0 {
		h.minHealthy = defaultMinHealthyTime
	}
	if h.deadline <= 0 {
		h.deadline = defaultHealthyDeadline
	}
	if a.DeploymentStatus != nil {
		h.canary = a.DeploymentStatus.Canary
		if a.DeploymentStatus.Healthy != nil {
			h.decided = a.DeploymentStatus.Copy() // the server already knows
		}
	}
	if restored != nil && restored.Healthy != nil {
		h.decided = restored.Copy()
	}
	return h
}

// healthParams returns how the alloc's health is decided: by its
// deployment's update block, or, for a service alloc outside a deployment,
// by its migrate block. ok is false when its health is not tracked.
func healthParams(a *structs.Allocation) (mode string, minHealthy, deadline time.Duration, ok bool) {
	tg := a.Group()
	switch {
	case tg == nil:
		return "", 0, 0, false
	case a.DeploymentID != "":
		u := tg.Update
		if u == nil || u.HealthCheck == structs.UpdateHealthCheckManual {
			return "", 0, 0, false
		}
		return u.HealthCheck, u.MinHealthyTime, u.HealthyDeadline, true
	case a.Job.Type != structs.JobTypeService:
		return "", 0, 0, false
	}
	m := tg.Migrate
	if m == nil {
		m = a.Job.Migrate
	}
	if m == nil {
		m = &structs.MigrateStrategy{}
	}
	return m.HealthCheck, m.MinHealthyTime, m.HealthyDeadline, true
}

// arm starts the healthy deadline.
func (h *healthTracker) arm(c clock.Clock, wake func()) {
	if !h.enabled || h.decided != nil || h.deadlineT != nil {
		return
	}
	h.deadlineT = c.AfterFunc(h.deadline, func() { h.deadlinePast.Store(true); wake() })
}

// stop cancels the tracker's timers.
func (h *healthTracker) stop() {
	for _, t := range []clock.Timer{h.timer, h.deadlineT} {
		if t != nil {
			t.Stop()
		}
	}
}

// observe looks at the tasks and check results at now and returns the
// decision when one is made by this call.
func (h *healthTracker) observe(c clock.Clock, now time.Time, vs []view, results []checks.Result, wake func()) *structs.AllocDeploymentStatus {
	if !h.enabled || h.decided != nil {
		return nil
	}
	allRunning, failed, restarts := healthInputs(vs)
	if failed || h.deadlinePast.Load() {
		return h.decide(now, false)
	}
	h.trackTasks(now, allRunning, restarts)
	since, ready := h.readySince(results)
	if !ready {
		h.disarm()
		return nil
	}
	due := since.Add(h.minHealthy)
	if !now.Before(due) {
		return h.decide(now, true)
	}
	h.rearm(c, now, due, wake)
	return nil
}

// trackTasks restarts the tasks' running streak when a task stops
// running or restarts.
func (h *healthTracker) trackTasks(now time.Time, allRunning bool, restarts uint64) {
	if !allRunning || restarts != h.restarts {
		h.since, h.restarts = time.Time{}, restarts
	}
	if allRunning && h.since.IsZero() {
		h.since = now
	}
}

// readySince is when the alloc last became ready (tasks running and, in
// checks mode, every check passing); ready is false while it is not.
// Check results carry their own transition times, so a check that failed
// and recovered between two observations still restarts the streak.
func (h *healthTracker) readySince(results []checks.Result) (since time.Time, ready bool) {
	if h.since.IsZero() {
		return time.Time{}, false
	}
	if !h.useChecks {
		return h.since, true
	}
	counted := checks.ForDeployment(results)
	if len(results) > 0 && len(counted) == 0 {
		return h.since, true // every check has on_update = "ignore"
	}
	passing, ok := checks.PassingSince(counted)
	if !ok || len(counted) == 0 {
		return time.Time{}, false
	}
	if passing.After(h.since) {
		return passing, true
	}
	return h.since, true
}

// rearm makes sure a wake-up is scheduled for due.
func (h *healthTracker) rearm(c clock.Clock, now, due time.Time, wake func()) {
	if h.timer != nil && h.due.Equal(due) {
		return
	}
	h.disarm()
	h.due = due
	h.timer = c.AfterFunc(due.Sub(now), func() { wake() })
}

func (h *healthTracker) disarm() {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

func (h *healthTracker) decide(now time.Time, healthy bool) *structs.AllocDeploymentStatus {
	h.stop()
	h.decided = &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: now, Canary: h.canary}
	return h.decided
}

// healthInputs summarises the tasks health is judged on: main tasks and
// sidecars (ephemeral hooks and poststop tasks are expected to end).
func healthInputs(vs []view) (allRunning, failed bool, restarts uint64) {
	allRunning = true
	for _, v := range vs {
		if v.phase == phasePoststop || (v.phase != phaseMain && !v.sidecar) {
			continue
		}
		if v.state.Failed {
			failed = true
		}
		if !v.running() {
			allRunning = false
		}
		restarts += v.state.Restarts
	}
	return allRunning, failed, restarts
}
