package sim

import (
	"testing"
	"time"
)

// An expectation's String is what a failed scenario prints: every field
// that was set must appear, and unset ones must not.
func TestExpect_StringNamesEverySetField(t *testing.T) {
	yes, two := true, 2
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"eval, nothing set", EvalExpect{}.String(), "trigger=* status=*"},
		{"eval, every field", EvalExpect{Trigger: "job-register", Status: "complete", Job: "web", Delayed: &yes,
			Previous: "node-update", PreviousStatus: "blocked", Link: "blocked", Next: "none", Blocked: "set"}.String(),
			"trigger=job-register status=complete job=web delayed=true previous=node-update previous_status=blocked link=blocked next=none blocked=set"},
		{"alloc, nothing set", AllocExpect{}.String(), "job=* run/running"},
		{"alloc, every field", AllocExpect{Job: "web", Node: "n1", Restarts: &two, Desired: "stop", Client: "complete"}.String(),
			"job=web node=n1 restarts=2 stop/complete"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: String() = %q, want %q", c.name, c.got, c.want)
		}
	}
}

// Delayed compares WaitUntil with the check's time strictly: an eval whose
// wait ends exactly now is no longer delayed.
func TestEvalExpect_DelayedIsStrictlyInTheFuture(t *testing.T) {
	yes, no := true, false
	rec := EvalRecord{Trigger: "job-register", Status: "pending", WaitUntil: 10}
	for _, c := range []struct {
		delayed *bool
		now     time.Duration
		want    bool
	}{{&yes, 9, true}, {&yes, 10, false}, {&no, 10, true}, {&no, 9, false}} {
		got := EvalExpect{Delayed: c.delayed}.matches(rec, nil, c.now)
		if got != c.want {
			t.Errorf("delayed=%v at %d: matches = %v, want %v", *c.delayed, c.now, got, c.want)
		}
	}
}

// An alloc expectation with restarts counts only the allocs restarted in
// place exactly that many times; without, it counts them all.
func TestAllocExpect_CountsByRestarts(t *testing.T) {
	h := History{Allocs: []AllocRecord{
		{ID: "a", Job: "web", Desired: "run", Client: "running", Restarts: 0},
		{ID: "b", Job: "web", Desired: "run", Client: "running", Restarts: 1},
		{ID: "c", Job: "web", Desired: "run", Client: "running", Restarts: 1},
	}}
	zero, one, two := 0, 1, 2
	for _, c := range []struct {
		restarts *int
		want     int
	}{{nil, 3}, {&zero, 1}, {&one, 2}, {&two, 0}} {
		if got := (AllocExpect{Job: "web", Restarts: c.restarts}).count(h); got != c.want {
			t.Errorf("restarts %v: count = %d, want %d", c.restarts, got, c.want)
		}
	}
}
