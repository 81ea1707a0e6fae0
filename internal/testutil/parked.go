package testutil

import (
	"runtime"
	"strings"
)

// Parked reports whether some goroutine is blocked (on a channel, a
// select, a lock or a condition variable) with every one of frames in its
// stack trace, as runtime.Stack prints it: a function such as
// "planapply.(*Applier).stop(", or "created by ...waitsFor". It is how a
// test checks that something has not happened yet without sleeping: once
// the goroutine that would do it is parked where it waits for the test's
// next move, whatever it did before parking has been done.
func Parked(frames ...string) bool {
	for _, g := range goroutines() {
		header, stack, _ := strings.Cut(g, "\n")
		if !blocked(header) {
			continue
		}
		all := true
		for _, f := range frames {
			if !strings.Contains(stack, f) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// goroutines returns the stack trace of every goroutine, one per entry.
func goroutines() []string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Split(string(buf[:n]), "\n\n")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// blocked reports whether a goroutine header ("goroutine 7 [chan
// receive, 2 minutes]:") shows it waiting on another goroutine.
func blocked(header string) bool {
	_, state, ok := strings.Cut(header, "[")
	if !ok {
		return false
	}
	for _, s := range []string{"chan receive", "chan send", "select", "sync.", "semacquire"} {
		if strings.HasPrefix(state, s) {
			return true
		}
	}
	return false
}
