package testutil

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type recorder struct{ failed string }

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestWaitFor_ReturnsOnceTheConditionHolds(t *testing.T) {
	var polls atomic.Int32
	r := &recorder{}
	WaitFor(r, 5*time.Second, "three polls", func() bool { return polls.Add(1) == 3 })
	if r.failed != "" || polls.Load() != 3 {
		t.Fatalf("failed %q after %d polls", r.failed, polls.Load())
	}
}

func TestWaitFor_TimeoutNamesWhatAndWhy(t *testing.T) {
	r := &recorder{}
	WaitFor(r, 20*time.Millisecond, "the node to be ready", func() (bool, string) { return false, "status down" })
	for _, want := range []string{"timed out after 20ms", "the node to be ready", "last: status down"} {
		if !strings.Contains(r.failed, want) {
			t.Errorf("failure %q lacks %q", r.failed, want)
		}
	}
	r = &recorder{}
	WaitFor(r, time.Millisecond, "nothing", func() bool { return false })
	if r.failed != "timed out after 1ms waiting for nothing" {
		t.Errorf("bool condition failure = %q", r.failed)
	}
}
