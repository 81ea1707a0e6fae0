package checks

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Check statuses.
const (
	StatusPending = "pending" // not run yet
	StatusPassing = "passing"
	StatusWarning = "warning" // a script check exited 1
	StatusFailing = "failing"
)

// Result is a check's latest outcome.
type Result struct {
	Check  Check
	Status string
	Output string
	// StatusCode is the HTTP status of an http check's last probe.
	StatusCode int
	// Timestamp is when the check last ran; Since is when Status last
	// changed, so a passing result says how long it has passed without a
	// break.
	Timestamp time.Time
	Since     time.Time
	// Failures counts the runs in a row that count against the check's
	// check_restart limit (outside its grace); a restart resets it.
	Failures int
	// lastRaw and streak count the probes in a row with the same raw
	// outcome, for the check's success/failure thresholds.
	lastRaw string
	streak  int
}

// Config is what a Checker needs.
type Config struct {
	Clock clock.Clock
	// OnChange is called after a check's status or output changes, outside
	// the checker's lock; it must not block for long.
	OnChange func()
	// Exec runs script checks in their task (nil: they fail).
	Exec ExecFunc
	// Restart restarts a task whose check reached its check_restart
	// limit; it runs outside the checker's lock and must not block long.
	Restart func(task, reason string)
}

// Checker runs a fixed set of checks until stopped.
type Checker struct {
	cfg  Config
	http *http.Client
	// tlsHTTP are the clients of http checks with their own TLS settings
	// (tls_skip_verify, tls_server_name), by check index.
	tlsHTTP map[int]*http.Client
	ctx     context.Context // cancelled by Stop, aborting probes in flight
	cancel  context.CancelFunc

	mu      sync.Mutex
	results []Result
	// graceUntil is, per check, when its check_restart grace ends.
	graceUntil []time.Time
	timers     []clock.Timer
	started    bool
	stopped    bool
}

// New builds a checker for checks; nothing runs before Start.
func New(cfg Config, checks []Check) *Checker {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Checker{cfg: cfg, http: newHTTPClient(), ctx: ctx, cancel: cancel,
		results: make([]Result, len(checks)), timers: make([]clock.Timer, len(checks)),
		graceUntil: make([]time.Time, len(checks))}
	for i, ch := range checks {
		status := ch.Initial
		if status == "" {
			status = StatusPending
		}
		c.results[i] = Result{Check: ch, Status: status}
		if ch.Type == TypeHTTP && (ch.TLSSkipVerify || ch.TLSServerName != "") {
			if c.tlsHTTP == nil {
				c.tlsHTTP = map[int]*http.Client{}
			}
			c.tlsHTTP[i] = newTLSHTTPClient(ch)
		}
	}
	return c
}

// Start runs every check as soon as the clock allows, then on its
// interval. Starting twice, or after Stop, does nothing.
func (c *Checker) Start() {
	c.mu.Lock()
	if c.started || c.stopped {
		c.mu.Unlock()
		return
	}
	c.started = true
	now := c.cfg.Clock.Now()
	for i, r := range c.results {
		if r.Check.Restart != nil {
			c.graceUntil[i] = now.Add(r.Check.Restart.Grace)
		}
	}
	c.mu.Unlock()
	for i := range c.results {
		c.schedule(i, 0)
	}
}

// Started reports whether Start was called.
func (c *Checker) Started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// Stop cancels pending runs and aborts probes in flight; results stay
// readable.
func (c *Checker) Stop() {
	c.mu.Lock()
	c.stopped = true
	for _, t := range c.timers {
		if t != nil {
			t.Stop()
		}
	}
	c.mu.Unlock()
	c.cancel()
	c.http.CloseIdleConnections()
	for _, hc := range c.tlsHTTP {
		hc.CloseIdleConnections()
	}
}

// Checks returns the definitions the checker runs.
func (c *Checker) Checks() []Check {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Check, len(c.results))
	for i, r := range c.results {
		out[i] = r.Check
	}
	return out
}

// Snapshot returns every check's latest result, in definition order.
func (c *Checker) Snapshot() []Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Result(nil), c.results...)
}

func (c *Checker) schedule(i int, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.timers[i] = c.cfg.Clock.AfterFunc(d, func() { c.run(i) })
}

// run probes check i once, records the outcome and schedules the next
// run. A probe's timeout is wall-clock time: it bounds real network I/O.
func (c *Checker) run(i int) {
	c.mu.Lock()
	chk := c.results[i].Check
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.ctx, chk.Timeout)
	o := c.probe(ctx, i, chk)
	cancel()
	changed, restart := c.record(i, o)
	if changed && c.cfg.OnChange != nil {
		c.cfg.OnChange()
	}
	if restart && c.cfg.Restart != nil {
		c.cfg.Restart(chk.InTask, fmt.Sprintf("healthcheck: check %q unhealthy", chk.Name))
	}
	c.schedule(i, chk.Interval)
}

// record stores an outcome and reports whether it changed anything a
// reader would see, and whether the check's task is due a restart;
// outcomes arriving after Stop are dropped.
func (c *Checker) record(i int, o outcome) (changed, restart bool) {
	now := c.cfg.Clock.Now()
	status, out := StatusFailing, o.output
	switch {
	case o.passing:
		status = StatusPassing
	case o.warning:
		status = StatusWarning
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false, false
	}
	r := &c.results[i]
	status = thresholds(r, status)
	changed = r.Status != status || r.Output != out
	if r.Status != status {
		r.Since = now
	}
	r.Status, r.Output, r.StatusCode, r.Timestamp = status, out, o.code, now
	return changed, c.countFailure(i, now)
}

// thresholds applies the check's success_before_passing,
// failures_before_warning and failures_before_critical to a raw status:
// a move to passing or failing waits for that many raw results in a row
// (the status stays as it was meanwhile), and a failing streak long
// enough for failures_before_warning but not yet critical is a warning.
// Called with c.mu held.
func thresholds(r *Result, raw string) string {
	if raw == r.lastRaw {
		r.streak++
	} else {
		r.lastRaw, r.streak = raw, 1
	}
	ch := r.Check
	switch raw {
	case StatusPassing:
		if r.streak < ch.SuccessBeforePassing {
			return r.Status
		}
	case StatusFailing:
		if r.streak < ch.FailuresBeforeCritical {
			if ch.FailuresBeforeWarning > 0 && r.streak >= ch.FailuresBeforeWarning {
				return StatusWarning
			}
			return r.Status
		}
	}
	return raw
}

// ForDeployment is what the results mean to deployment health, by each
// check's on_update: "ignore" checks are left out, and an
// "ignore_warnings" check's warning counts as passing (since it began).
func ForDeployment(results []Result) []Result {
	out := make([]Result, 0, len(results))
	for _, r := range results {
		switch r.Check.OnUpdate {
		case structs.OnUpdateIgnore:
			continue
		case structs.OnUpdateIgnoreWarnings:
			if r.Status == StatusWarning {
				r.Status = StatusPassing
			}
		}
		out = append(out, r)
	}
	return out
}

// countFailure applies check i's check_restart to its latest result: a
// failure outside the grace adds to the streak, anything else ends it;
// reaching the limit resets the streak and starts a new grace for every
// check of the same task (it is about to restart). Called with c.mu held.
func (c *Checker) countFailure(i int, now time.Time) bool {
	r := &c.results[i]
	cr := r.Check.Restart
	if cr == nil || cr.Limit <= 0 || r.Check.InTask == "" {
		return false
	}
	bad := r.Status == StatusFailing || r.Status == StatusWarning && !cr.IgnoreWarnings
	if !bad || now.Before(c.graceUntil[i]) {
		r.Failures = 0
		return false
	}
	r.Failures++
	if r.Failures < cr.Limit {
		return false
	}
	for j := range c.results {
		if o := &c.results[j]; o.Check.InTask == r.Check.InTask && o.Check.Restart != nil {
			o.Failures = 0
			c.graceUntil[j] = now.Add(o.Check.Restart.Grace)
		}
	}
	return true
}

// PassingSince reports whether every result is passing and, if so, since
// when all of them have been (the latest of their Since times). With no
// results it is vacuously true from the zero time.
func PassingSince(results []Result) (time.Time, bool) {
	var since time.Time
	for _, r := range results {
		if r.Status != StatusPassing {
			return time.Time{}, false
		}
		if r.Since.After(since) {
			since = r.Since
		}
	}
	return since, true
}
