package sim

import (
	"strings"
	"testing"
	"time"
)

// The expectation checker is what makes a scenario fail: every kind of
// mismatch (total, per-eval count, pointer, alloc count) must be
// reported, and an exact match must report nothing.
func TestExpectCheck_ReportsEveryMismatch(t *testing.T) {
	h := History{
		Evals: []EvalRecord{
			{ID: "E1", Trigger: "job-register", Status: "complete", Job: "web", Blocked: "E2"},
			{ID: "E2", Trigger: "queued-allocs", Status: "blocked", Job: "web", Previous: "E1", Created: 10 * time.Second},
			{ID: "E3", Trigger: "deployment-watcher", Status: "complete", Job: "web", Created: 20 * time.Second},
		},
		Allocs: []AllocRecord{{ID: "A1", Job: "web", Node: "n1", Desired: "run", Client: "running"}},
	}
	intp := func(n int) *int { return &n }
	exact := Expect{Total: intp(3),
		Evals: []EvalExpect{
			{Trigger: "job-register", Status: "complete", Count: 1},
			{Trigger: "queued-allocs", Status: "blocked", Previous: "job-register", Link: "blocked", Count: 1},
			{Trigger: "deployment-watcher", Previous: "none", Count: 1},
		},
		Allocs: []AllocExpect{{Job: "web", Node: "n1", Count: 1}},
	}
	if fails := exact.check(h, time.Minute); len(fails) != 0 {
		t.Fatalf("exact expectation failed: %v", fails)
	}
	for _, tc := range []struct {
		name string
		exp  Expect
		want string
	}{
		{"total", Expect{Total: intp(4)}, "3 evals since 0s, want 4"},
		{"total since", Expect{Since: 15 * time.Second, Total: intp(2)}, "1 evals since 15s, want 2"},
		{"eval count", Expect{Evals: []EvalExpect{{Trigger: "job-register", Count: 2}}}, "1 evals trigger=job-register"},
		{"eval count zero", Expect{Evals: []EvalExpect{{Trigger: "queued-allocs", Count: 0}}}, "1 evals trigger=queued-allocs"},
		{"status", Expect{Evals: []EvalExpect{{Trigger: "queued-allocs", Status: "canceled", Count: 1}}}, "0 evals trigger=queued-allocs status=canceled"},
		{"pointer unset", Expect{Evals: []EvalExpect{{Trigger: "queued-allocs", Previous: "none", Count: 1}}}, "0 evals trigger=queued-allocs"},
		{"own pointer unset", Expect{Evals: []EvalExpect{{Trigger: "job-register", Blocked: "none", Count: 1}}}, "blocked=none"},
		{"own pointer set", Expect{Evals: []EvalExpect{{Trigger: "deployment-watcher", Next: "set", Count: 1}}}, "next=set"},
		{"link", Expect{Evals: []EvalExpect{{Trigger: "queued-allocs", Previous: "job-register", Link: "next", Count: 1}}}, "link=next"},
		{"alloc count", Expect{Allocs: []AllocExpect{{Job: "web", Count: 2}}}, "1 allocs job=web run/running, want 2"},
	} {
		fails := tc.exp.check(h, time.Minute)
		if len(fails) != 1 || !strings.Contains(fails[0], tc.want) {
			t.Errorf("%s: got %q, want one failure containing %q", tc.name, fails, tc.want)
		}
	}
}
