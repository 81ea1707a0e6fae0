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
	pause := time.Millisecond
	poll(t, timeout, "waiting for "+what, asReasoned(cond), func() {
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	})
}

// poll checks cond until it holds, calling between after each miss, and
// fails t (naming doing and cond's last reason) once timeout has passed.
func poll(t TB, timeout time.Duration, doing string, cond func() (bool, string), between func()) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if why == "" {
				t.Fatalf("timed out after %s %s", timeout, doing)
			} else {
				t.Fatalf("timed out after %s %s (last: %s)", timeout, doing, why)
			}
			return
		}
		between()
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
