package server

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestTuneGC_ServerDefaultUnlessGOGCIsSet(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { gcTuners.Add(1); debug.SetGCPercent(was) })
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

func TestServerGCPercentFor_CapsTheHeadroom(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name     string
		live     uint64
		headroom uint64
		want     int
	}{
		{"nothing live yet: the default", 0, gib, ServerGCPercent},
		{"small heap: the default", 100 << 20, gib, ServerGCPercent},
		{"half the headroom: exactly the default", gib / 2, gib, ServerGCPercent},
		{"a million allocs (2 GiB live): grows by 1 GiB", 2 * gib, gib, 50},
		{"huge heap: the floor", 16 * gib, gib, ServerGCMinPercent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := serverGCPercentFor(tc.live, tc.headroom); got != tc.want {
				t.Fatalf("serverGCPercentFor(%d, %d) = %d, want %d", tc.live, tc.headroom, got, tc.want)
			}
		})
	}
}

// TestGCTuner_LowersTheTargetAfterACollection: with a live heap far above
// the headroom, the tuner sets the floor after a collection; a target set
// by someone else afterwards stays.
func TestGCTuner_LowersTheTargetAfterACollection(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { gcTuners.Add(1); debug.SetGCPercent(was) })
	ballast := make([]byte, 32<<20)
	startGCTuner(1 << 20)
	gogc := func() int {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return int(s[0].Value.Uint64())
	}
	deadline := time.Now().Add(10 * time.Second)
	for gogc() != ServerGCMinPercent {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d after collections, want %d", gogc(), ServerGCMinPercent)
		}
		runtime.GC()
		runtime.Gosched()
	}
	debug.SetGCPercent(150)
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	if got := gogc(); got != 150 {
		t.Errorf("GOGC %d after an explicit 150, want it kept", got)
	}
	runtime.KeepAlive(ballast)
}
