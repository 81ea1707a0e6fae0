package testutil

import (
	"time"
)

// TB is the part of testing.TB WaitFor uses (so it can be tested itself).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Condition is what WaitFor polls: a bare bool, or a bool with the reason
// it is not met yet (shown when the wait times out).
type Condition interface {
	func() bool | func() (bool, string)
}

// WaitFor polls cond until it holds, failing t when timeout passes first
// with what was awaited and cond's last reason. It is the one way tests
// wait for another goroutine or process: never a bare time.Sleep. It
// polls fast at first, then every 50ms, on the real clock (tests on a
// clock.Manual advance it themselves between polls).
func WaitFor[C Condition](t TB, timeout time.Duration, what string, cond C) {
	t.Helper()
	check := asReasoned(cond)
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		ok, why := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if why == "" {
				t.Fatalf("timed out after %s waiting for %s", timeout, what)
			} else {
				t.Fatalf("timed out after %s waiting for %s (last: %s)", timeout, what, why)
			}
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

func asReasoned[C Condition](cond C) func() (bool, string) {
	switch f := any(cond).(type) {
	case func() bool:
		return func() (bool, string) { return f(), "" }
	case func() (bool, string):
		return f
	}
	panic("unreachable: Condition has two types")
}
