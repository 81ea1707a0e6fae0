// Package clock is the injectable time source of every component that
// stamps or waits: the real one in production, a manual one in tests and
// the simulator, so time only moves when a test says so.
package clock

import "time"

// Clock tells the time and schedules callbacks.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call; it reports whether the call was still pending.
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

// Now returns the current time.
func (Real) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// After wraps time.After.
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }
