package allocrunner

import (
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Nomad's defaults for an update block that leaves them out.
const (
	defaultMinHealthyTime  = 10 * time.Second
	defaultHealthyDeadline = 5 * time.Minute
)

// healthTracker decides an alloc's deployment health with the
// "task_states" semantics (also used for "checks", since this client runs
// no service checks): healthy once every long-running task has been
// running, without a restart, for min_healthy_time; unhealthy when one
// fails, or when healthy_deadline passes first. The decision is made once
// per deployment.
type healthTracker struct {
	enabled      bool
	deploymentID string
	canary       bool
	minHealthy   time.Duration
	deadline     time.Duration

	decided      *structs.AllocDeploymentStatus
	since        time.Time
	restarts     uint64
	timer        clock.Timer
	deadlineT    clock.Timer
	deadlinePast atomic.Bool // set by the deadline timer
}

func newHealthTracker(a *structs.Allocation, restored *structs.AllocDeploymentStatus) *healthTracker {
	h := &healthTracker{deploymentID: a.DeploymentID}
	tg := group(a)
	if a.DeploymentID == "" || tg == nil || tg.Update == nil || tg.Update.HealthCheck == structs.UpdateHealthCheckManual {
		return h
	}
	h.enabled = true
	h.minHealthy, h.deadline = tg.Update.MinHealthyTime, tg.Update.HealthyDeadline
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

// observe looks at the tasks at now and returns the decision when one is
// made by this call.
func (h *healthTracker) observe(c clock.Clock, now time.Time, vs []view, wake func()) *structs.AllocDeploymentStatus {
	if !h.enabled || h.decided != nil {
		return nil
	}
	allRunning, failed, restarts := healthInputs(vs)
	switch {
	case failed:
		return h.decide(now, false)
	case h.deadlinePast.Load():
		return h.decide(now, false)
	}
	if !allRunning || restarts != h.restarts {
		h.since, h.restarts = time.Time{}, restarts
		if h.timer != nil {
			h.timer.Stop()
			h.timer = nil
		}
		if !allRunning {
			return nil
		}
	}
	if h.since.IsZero() {
		h.since = now
		h.timer = c.AfterFunc(h.minHealthy, func() { wake() })
	}
	if now.Sub(h.since) >= h.minHealthy {
		return h.decide(now, true)
	}
	return nil
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
