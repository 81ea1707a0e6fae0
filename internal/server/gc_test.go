package server

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC_ServerDefaultUnlessGOGCIsSet(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	env := func(v string, set bool) func(string) (string, bool) {
		return func(string) (string, bool) { return v, set }
	}
	for _, tc := range []struct {
		name    string
		lookup  func(string) (string, bool)
		percent int
		fromEnv bool
		applied int // the target the runtime has afterwards
	}{
		{"unset: the server default", env("", false), ServerGCPercent, false, ServerGCPercent},
		{"empty: the server default", env("", true), ServerGCPercent, false, ServerGCPercent},
		{"GOGC=50 wins", env("50", true), 50, true, 100},
		{"GOGC=off wins", env("off", true), -1, true, 100},
		{"malformed GOGC: the runtime's 100", env("lots", true), 100, true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100) // as the runtime starts without GOGC
			percent, fromEnv := TuneGC(tc.lookup)
			if percent != tc.percent || fromEnv != tc.fromEnv {
				t.Fatalf("TuneGC = %d, %v; want %d, %v", percent, fromEnv, tc.percent, tc.fromEnv)
			}
			if got := debug.SetGCPercent(100); got != tc.applied {
				t.Fatalf("runtime GC percent %d, want %d", got, tc.applied)
			}
		})
	}
}
