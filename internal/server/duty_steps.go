package server

import (
	"context"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/deploywatch"
	"github.com/drover-project/drover/internal/server/drainer"
	"github.com/drover-project/drover/internal/structs"
)

// Every leader duty is one step function: it does what is due now,
// without waiting, and reports whether it changed anything. In production
// each duty is a goroutine that waits for its wakeup (a channel, a state
// watch, a timer on the injected clock) and then calls its step. With
// Config.ManualDuties the server starts none of those goroutines (nor the
// workers'): the caller, the simulator, runs StepDuties until nothing
// progresses and then moves the manual clock to its next timer. Periodic
// duties (GC, unblock-failed) and deadlines (deployments, drains, periodic
// launches) then become timers on that clock, so moving it to the next
// timer reaches the next instant at which some duty has work.

// DutyStep names one leader duty's single step.
type DutyStep struct {
	Name string
	Step func() bool
}

// doneCtx is already canceled: blocking takes (broker, plan queue,
// blocked duplicates) handed it look once and return at once.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// steppedDuties is the per-leadership-term memory of the stepped duties
// (what the production loops keep in local variables) and the clock
// timers that stand in for their waits.
type steppedDuties struct {
	clk       clock.Clock
	watcher   *deploywatch.Watcher
	drainer   *drainer.Drainer
	launched  map[structs.NamespacedID]time.Time
	gc        *tick
	unblock   *tick
	mu        sync.Mutex
	deadlines map[string]clock.Timer // next deadline per duty
}

func (s *Server) newSteppedDuties() *steppedDuties {
	c := s.config
	return &steppedDuties{
		clk: c.Clock, watcher: deploywatch.New(), drainer: drainer.New(c.NewID),
		launched: map[structs.NamespacedID]time.Time{},
		gc:       newTick(c.Clock, c.GCInterval), unblock: newTick(c.Clock, c.UnblockFailedInterval),
		deadlines: map[string]clock.Timer{},
	}
}

// wakeAt arms a timer at a duty's next deadline (replacing its last), so
// a caller moving the clock from timer to timer stops there.
func (d *steppedDuties) wakeAt(duty string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := d.deadlines[duty]; ok {
		t.Stop()
		delete(d.deadlines, duty)
	}
	if wait := at.Sub(d.clk.Now()); !at.IsZero() && wait > 0 {
		d.deadlines[duty] = d.clk.AfterFunc(wait, func() {})
	}
}

func (d *steppedDuties) stop() {
	d.gc.stop()
	d.unblock.stop()
	d.mu.Lock()
	defer d.mu.Unlock()
	for duty, t := range d.deadlines {
		t.Stop()
		delete(d.deadlines, duty)
	}
}

// duties returns the term's stepped duties; nil when not leading or not
// in manual mode.
func (s *Server) duties() *steppedDuties {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	return s.stepped
}

func (s *Server) setDuties(d *steppedDuties) {
	s.stepMu.Lock()
	old := s.stepped
	s.stepped = d
	s.stepMu.Unlock()
	if old != nil {
		old.stop()
	}
}

// DutySteps lists the leader's duties and the workers in the fixed order
// StepDuties runs them. Outside manual mode, or when not leading, the
// leader duties do nothing.
func (s *Server) DutySteps() []DutyStep {
	steps := []DutyStep{
		{"heartbeat-expiry", s.heartbeat.stepExpired},
		{"stopped-job-blocked", s.stepStoppedJobBlocked},
		{"duplicate-blocked", func() bool { return s.stepDuplicateBlocked(doneCtx) }},
		{"cancelable", s.stepCancelable},
		{"undeliverable", func() bool { return s.stepUndeliverable(doneCtx) }},
		{"failed-follow-up", s.stepFailedEvals},
		{"unblock-failed", s.stepUnblockFailed},
		{"core-gc", s.stepGC},
		{"periodic-dispatch", s.stepPeriodicDispatch},
		{"drainer", s.stepDrainer},
		{"deployment-watcher", s.stepDeploymentWatcher},
		{"plan-applier", s.applier.Step},
	}
	for _, w := range s.workers {
		steps = append(steps, DutyStep{w.ID(), w.Step})
	}
	return steps
}

// StepDuties runs every step of DutySteps once, in order, and reports
// whether any made progress.
func (s *Server) StepDuties() bool {
	if !s.leaderActive.Load() || s.duties() == nil {
		return false
	}
	progress := false
	for _, d := range s.DutySteps() {
		if d.Step() {
			progress = true
		}
	}
	return progress
}

func (s *Server) stepUnblockFailed() bool {
	d := s.duties()
	if d == nil || !d.unblock.take() {
		return false
	}
	s.blocked.UnblockFailed()
	return true
}

func (s *Server) stepGC() bool {
	d := s.duties()
	if d == nil || !d.gc.take() {
		return false
	}
	s.scheduleGC()
	return true
}

func (s *Server) stepPeriodicDispatch() bool {
	return s.stepToDeadline("periodic-dispatch", func(d *steppedDuties) (bool, time.Time, error) {
		return s.periodicDispatchStep(nil, d.launched)
	})
}

func (s *Server) stepDrainer() bool {
	return s.stepToDeadline("drainer", func(d *steppedDuties) (bool, time.Time, error) {
		return s.drainerStep(nil, d.drainer)
	})
}

func (s *Server) stepDeploymentWatcher() bool {
	return s.stepToDeadline("deployment-watcher", func(d *steppedDuties) (bool, time.Time, error) {
		return s.deploymentWatcherStep(nil, d.watcher)
	})
}

// stepToDeadline runs a duty that waits for a state change or its next
// deadline: the step, then a timer at the deadline it returns.
func (s *Server) stepToDeadline(duty string, step func(*steppedDuties) (bool, time.Time, error)) bool {
	d := s.duties()
	if d == nil {
		return false
	}
	wrote, next, err := step(d)
	if err != nil {
		s.log.Error(duty+": read state failed", "error", err)
	}
	d.wakeAt(duty, next)
	return wrote
}

// tick is a due flag a clock timer raises every interval: the stepped form
// of a duty that runs on a period. take re-arms it, as the production loop
// waits a fresh interval after each run.
type tick struct {
	clk      clock.Clock
	interval time.Duration
	mu       sync.Mutex
	due      bool
	timer    clock.Timer
}

func newTick(clk clock.Clock, interval time.Duration) *tick {
	t := &tick{clk: clk, interval: interval}
	t.arm()
	return t
}

func (t *tick) arm() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = t.clk.AfterFunc(t.interval, func() {
		t.mu.Lock()
		t.due = true
		t.mu.Unlock()
	})
}

// take reports whether the interval has passed, and starts the next one.
func (t *tick) take() bool {
	t.mu.Lock()
	due := t.due
	t.due = false
	t.mu.Unlock()
	if due {
		t.arm()
	}
	return due
}

func (t *tick) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
	}
}
