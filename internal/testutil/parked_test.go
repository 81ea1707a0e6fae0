package testutil

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func parkOn(ch chan struct{}) { <-ch }

func TestParked_SeesABlockedGoroutineByItsFrames(t *testing.T) {
	ch := make(chan struct{})
	done := make(chan struct{})
	go func() { parkOn(ch); close(done) }()
	WaitFor(t, 10*time.Second, "the goroutine parked", func() bool { return Parked("testutil.parkOn(") })
	if Parked("testutil.parkOn(", "no such frame") {
		t.Fatal("Parked matched a frame no goroutine has")
	}
	close(ch)
	<-done
	if Parked("testutil.parkOn(") {
		t.Fatal("Parked still sees a goroutine that returned")
	}
}

func TestParked_BlockedStates(t *testing.T) {
	if !blocked("goroutine 7 [sync.Mutex.Lock]:") || !blocked("goroutine 7 [chan receive, 2 minutes]:") || !blocked("goroutine 7 [select]:") {
		t.Fatal("a blocked goroutine is not seen as blocked")
	}
	for _, h := range []string{"goroutine 1 [running]:", "goroutine 1 [runnable]:", "goroutine 1 [syscall]:", "goroutine 1 [sleep]:"} {
		if blocked(h) {
			t.Fatalf("%q seen as blocked", h)
		}
	}
	var mu sync.Mutex
	got := 0
	mu.Lock()
	done := make(chan struct{})
	go func() { // parks on the lock
		mu.Lock()
		got++
		mu.Unlock()
		close(done)
	}()
	WaitFor(t, 10*time.Second, "a goroutine parked on the lock", func() bool {
		return Parked("TestParked_BlockedStates.func")
	})
	mu.Unlock()
	<-done
	if got != 1 {
		t.Fatalf("the parked goroutine ran %d times, want once", got)
	}
}

type fakeClock struct{ now time.Duration }

func (c *fakeClock) Advance(d time.Duration) { c.now += d }

func TestAdvanceUntil_StepsTheClockUntilTheConditionHolds(t *testing.T) {
	clk := &fakeClock{}
	r := &recorder{}
	AdvanceUntil(r, clk, time.Second, 10*time.Second, "three seconds", func() bool { return clk.now >= 3*time.Second })
	if r.failed != "" || clk.now != 3*time.Second {
		t.Fatalf("failed %q at %s", r.failed, clk.now)
	}
	r = &recorder{}
	AdvanceUntil(r, clk, time.Second, 20*time.Millisecond, "never", func() (bool, string) { return false, "still not" })
	for _, want := range []string{"timed out after 20ms", "never", "last: still not"} {
		if !strings.Contains(r.failed, want) {
			t.Errorf("failure %q lacks %q", r.failed, want)
		}
	}
}
