package leader

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-memdb"

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
//
// One table (table) lists every duty with its step and its wake, and
// drives both modes: run is the production goroutine of a duty, stepDuty
// its stepped pass, so the two cannot list different duties.

// Duty is one leader duty: its name, its step and its wake.
type Duty struct {
	Name string
	// Step does what is due now and reports whether it changed anything.
	// It waits for nothing past ctx: the stepped mode hands it a done
	// context, so blocking takes (broker, blocked duplicates) look once
	// and return. nil: the duty has no stepped form (Loop, Background).
	Step func(ctx context.Context) bool
	// Wake is when the step is due.
	Wake Wake
}

// wakeKind says how a duty waits between steps.
type wakeKind int

const (
	wakeSelf       wakeKind = iota // the step waits on its ctx itself
	wakeSignal                     // a signal channel, or a poll timer
	wakeEvery                      // a period on the clock
	wakeChange                     // a state watch or the step's next deadline
	wakeTimers                     // the clock's timers run the work; stepped only
	wakeLoop                       // its own production loop; stepped by Step, if any
	wakeBackground                 // its own loop in both modes, never stepped
)

// Wake is when a duty's step is due. Production waits for it in the
// duty's goroutine; the stepped mode waits for nothing and stands in with
// timers on the manual clock (a tick per period, a timer at each
// deadline).
type Wake struct {
	kind   wakeKind
	signal <-chan struct{}
	poll   time.Duration
	every  time.Duration
	watch  *watch
	run    func(ctx context.Context)
}

// Loop is the wake of a duty whose production form is a loop of its own
// (run): the plan applier's pipelined loop, the keyring's KEK hand-over
// and rekeyer. In the stepped mode its Step runs (nil: the duty does not
// run there at all).
func Loop(run func(ctx context.Context)) Wake { return Wake{kind: wakeLoop, run: run} }

// Background is the wake of a duty that runs its own loop in both modes
// and has no step: the cluster's member reconciliation and autopilot,
// which the simulator does not drive.
func Background(run func(ctx context.Context)) Wake { return Wake{kind: wakeBackground, run: run} }

// onSignal: a step per signal, or per poll when poll > 0.
func onSignal(signal <-chan struct{}, poll time.Duration) Wake {
	return Wake{kind: wakeSignal, signal: signal, poll: poll}
}

func everyInterval(d time.Duration) Wake { return Wake{kind: wakeEvery, every: d} }

func (d Duty) stepped() bool { return d.Step != nil && d.Wake.kind != wakeBackground }

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

// table is the duty table of one leadership term, in the order the
// stepped mode runs it: each entry with its own per-term memory (what
// the production loops keep in local variables). t is the stepped term
// (nil in production).
func (l *Leader) table(t *term) []Duty {
	c := l.c
	launched := map[structs.NamespacedID]time.Time{} // last launch time per periodic parent
	watcher, drain := deploywatch.New(), drainer.New(c.NewID)
	duties := []Duty{
		// In production the heartbeat timers expire nodes themselves.
		{"heartbeat-expiry", func(context.Context) bool { return l.heartbeat.stepExpired() }, Wake{kind: wakeTimers}},
		{"stopped-job-blocked", l.stepStoppedJobBlocked, onSignal(l.stoppedJobBlocked.wake, 0)},
		{"duplicate-blocked", l.stepDuplicateBlocked, Wake{kind: wakeSelf}},
		// Not every ack wakes the reaper (the undeliverable-eval reaper
		// acks the broker directly), so it also looks every 5 s.
		{"cancelable", l.stepCancelable, onSignal(l.cancelableWake, 5*time.Second)},
		{"undeliverable", l.undeliverableStep(c.Clock), Wake{kind: wakeSelf}},
		{"failed-follow-up", l.stepFailedEvals, onSignal(l.failedEvals.wake, 0)},
		// Evals blocked by max-plan-attempts: the conflicts that blocked
		// them are likely resolved by now.
		{"unblock-failed", func(context.Context) bool { l.blocked.UnblockFailed(); return true }, everyInterval(c.UnblockFailedInterval)},
		{"core-gc", func(context.Context) bool { l.scheduleGC(); return true }, everyInterval(c.GCInterval)},
		l.watchDuty("periodic-dispatch", func(ws memdb.WatchSet) (bool, time.Time, error) {
			return l.periodicDispatchStep(ws, launched)
		}, func(err error) (time.Time, bool) {
			l.log.Error("periodic dispatcher: read jobs", "error", err)
			return time.Time{}, false
		}),
		l.watchDuty("drainer", func(ws memdb.WatchSet) (bool, time.Time, error) {
			return l.drainerStep(ws, drain)
		}, func(err error) (time.Time, bool) {
			l.log.Error("drainer: read nodes", "error", err)
			return time.Time{}, false
		}),
		l.watchDuty("deployment-watcher", func(ws memdb.WatchSet) (bool, time.Time, error) {
			return l.deploymentWatcherStep(ws, watcher)
		}, func(err error) (time.Time, bool) {
			l.log.Warn("deployment watcher: read deployments failed; retrying", "error", err)
			return l.now().Add(deploymentRetry), true
		}),
		l.watchDuty("scheduler-config", func(ws memdb.WatchSet) (bool, time.Time, error) {
			changed, err := l.applySchedulerConfig(ws)
			return changed, time.Time{}, err
		}, func(err error) (time.Time, bool) {
			l.log.Error("scheduler configuration: read failed; retrying", "error", err)
			return l.now().Add(time.Second), true
		}),
		{"plan-applier", func(context.Context) bool { return c.Applier.Step() }, Loop(c.Applier.Run)},
	}
	return append(duties, c.Extra...)
}

// Group runs the duties' goroutines, each under its duty's name, and
// lets its owner wait for them (the server names the duties a slow
// shutdown still waits for).
type Group interface {
	Go(name string, fn func())
}

// StartDuties starts the term's duties: in production one goroutine per
// duty (run by g, ending with ctx); with ManualDuties the stepped term,
// which the caller steps, and only the Background duties' goroutines.
func (l *Leader) StartDuties(ctx context.Context, g Group) {
	var t *term
	if l.c.ManualDuties {
		t = newTerm(l.c.Clock)
	}
	duties := l.table(t)
	if t != nil {
		for _, d := range duties {
			if d.Wake.kind == wakeEvery {
				t.ticks[d.Name] = newTick(l.c.Clock, d.Wake.every)
			}
			if d.stepped() {
				t.duties = append(t.duties, d)
			}
		}
		l.setTerm(t) // the caller steps them
	}
	for _, d := range duties {
		if t == nil || d.Wake.kind == wakeBackground {
			l.startDuty(ctx, g, d)
		}
	}
}

func (l *Leader) startDuty(ctx context.Context, g Group, d Duty) {
	if d.Wake.kind == wakeTimers {
		return
	}
	g.Go(d.Name, func() { l.run(ctx, d) })
}

// run is a duty's production goroutine: it waits for the wake and steps,
// until ctx is done.
func (l *Leader) run(ctx context.Context, d Duty) {
	w := d.Wake
	switch w.kind {
	case wakeSelf:
		for ctx.Err() == nil {
			d.Step(ctx)
		}
	case wakeSignal:
		for {
			// The poll timer is made before the select, where coverage
			// (and so mutation testing) sees it.
			var poll <-chan time.Time
			if w.poll > 0 {
				poll = l.c.Clock.After(w.poll)
			}
			select {
			case <-ctx.Done():
				return
			case <-w.signal:
			case <-poll:
			}
			d.Step(ctx)
		}
	case wakeEvery:
		l.every(ctx, w.every, func() { d.Step(ctx) })
	case wakeChange:
		for ctx.Err() == nil {
			w.watch.ws = memdb.NewWatchSet()
			d.Step(ctx)
			next := w.watch.next
			if err := w.watch.err; err != nil {
				var goOn bool
				if next, goOn = w.watch.onErr(err); !goOn {
					return
				}
			}
			l.waitForChange(ctx, w.watch.ws, next)
		}
	case wakeLoop, wakeBackground:
		w.run(ctx)
	}
}

// stepDuty is a duty's stepped pass: the step, gated by its tick when
// the duty runs on a period, then a timer at the deadline it returns when
// it waits for one.
func (l *Leader) stepDuty(t *term, d Duty) bool {
	switch d.Wake.kind {
	case wakeEvery:
		if !t.ticks[d.Name].take() {
			return false
		}
	case wakeChange:
		w := d.Wake.watch
		w.ws = nil
		wrote := d.Step(doneCtx)
		if w.err != nil {
			l.log.Error(d.Name+": read state failed", "error", w.err)
		}
		t.wakeAt(d.Name, w.next)
		return wrote
	}
	return d.Step(doneCtx)
}

// DutySteps lists the leader's stepped duties in the fixed order the
// stepped mode runs them. Outside manual mode, or when not leading, they
// do nothing.
func (l *Leader) DutySteps() []DutyStep {
	steps := make([]DutyStep, 0, len(l.steps))
	for i, name := range l.steps {
		steps = append(steps, DutyStep{name, func() bool {
			t := l.term()
			if t == nil || i >= len(t.duties) {
				return false
			}
			return l.stepDuty(t, t.duties[i])
		}})
	}
	return steps
}

// Stepping reports whether this server leads with stepped duties (a
// leadership term with ManualDuties).
func (l *Leader) Stepping() bool { return l.active.Load() && l.term() != nil }

// term is the per-leadership-term memory of the stepped duties: their
// table and the clock timers that stand in for their waits.
type term struct {
	clk       clock.Clock
	duties    []Duty
	ticks     map[string]*tick
	mu        sync.Mutex
	deadlines map[string]clock.Timer // next deadline per duty
}

func newTerm(clk clock.Clock) *term {
	return &term{clk: clk, ticks: map[string]*tick{}, deadlines: map[string]clock.Timer{}}
}

// wakeAt arms a timer at a duty's next deadline (replacing its last), so
// a caller moving the clock from timer to timer stops there.
func (t *term) wakeAt(duty string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tm, ok := t.deadlines[duty]; ok {
		tm.Stop()
		delete(t.deadlines, duty)
	}
	if wait := at.Sub(t.clk.Now()); !at.IsZero() && wait > 0 {
		t.deadlines[duty] = t.clk.AfterFunc(wait, func() {})
	}
}

func (t *term) stop() {
	for _, tk := range t.ticks {
		tk.stop()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for duty, tm := range t.deadlines {
		tm.Stop()
		delete(t.deadlines, duty)
	}
}

// term returns the term's stepped duties; nil when not leading or not
// in manual mode.
func (l *Leader) term() *term {
	l.stepMu.Lock()
	defer l.stepMu.Unlock()
	return l.stepped
}

func (l *Leader) setTerm(t *term) {
	l.stepMu.Lock()
	old := l.stepped
	l.stepped = t
	l.stepMu.Unlock()
	if old != nil {
		old.stop()
	}
}

// watch is what a duty woken by state changes keeps between its step and
// its wait: the watch set its step reads under (nil when stepped), and
// the next deadline or the error the step returned.
type watch struct {
	ws    memdb.WatchSet
	next  time.Time
	err   error
	onErr func(error) (next time.Time, goOn bool) // production: what a failed read does
}

// watchDuty is a duty that steps whenever what it read (under the watch
// set) changes or its next deadline passes.
func (l *Leader) watchDuty(name string, step func(memdb.WatchSet) (bool, time.Time, error), onErr func(error) (time.Time, bool)) Duty {
	w := &watch{onErr: onErr}
	return Duty{Name: name, Wake: Wake{kind: wakeChange, watch: w}, Step: func(context.Context) bool {
		wrote, next, err := step(w.ws)
		w.next, w.err = next, err
		return wrote
	}}
}

// idleRecheck bounds how long a leader loop sleeps without a change, so
// deadlines are noticed even on a quiet cluster.
const idleRecheck = time.Minute

// waitForChange waits for a watched change, the next deadline (on the
// injected clock) or the idle recheck, whichever comes first.
func (l *Leader) waitForChange(ctx context.Context, ws memdb.WatchSet, deadline time.Time) {
	wait := idleRecheck
	if !deadline.IsZero() {
		until := deadline.Sub(l.now())
		if until <= 0 {
			return // passed while we were busy: step again now
		}
		wait = min(wait, until)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := l.c.Clock.AfterFunc(wait, cancel)
	defer timer.Stop()
	_ = ws.WatchCtx(waitCtx)
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
