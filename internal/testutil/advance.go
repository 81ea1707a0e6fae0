package testutil

import "time"

// Stepper is the part of a manual clock AdvanceUntil moves.
type Stepper interface {
	Advance(d time.Duration)
}

// stepPause is the real time AdvanceUntil leaves between two steps of the
// manual clock, so goroutines a step woke can react (arm their next
// timer, report) before the next one.
const stepPause = 3 * time.Millisecond

// AdvanceUntil moves clk forward by step until cond holds, failing t with
// what was awaited and cond's last reason when timeout (real time) passes
// first. It is WaitFor for a component on a manual clock that needs time
// to pass to make progress: each poll that finds cond unmet advances the
// clock once, then pauses briefly on the real clock.
func AdvanceUntil[C Condition](t TB, clk Stepper, step, timeout time.Duration, what string, cond C) {
	t.Helper()
	poll(t, timeout, "advancing the clock until "+what, asReasoned(cond), func() {
		clk.Advance(step)
		time.Sleep(stepPause)
	})
}
