package structs

import (
	"slices"
	"testing"
)

// The trigger and status strings are persisted in raft and shown to users
// and Nomad tooling; these tests pin them to the tables of
// docs/design.md so a rename cannot slip through.

func TestEvalTriggers_AllSeventeenNamed(t *testing.T) {
	want := []struct{ got, want string }{
		{EvalTriggerJobRegister, "job-register"},
		{EvalTriggerJobDeregister, "job-deregister"},
		{EvalTriggerPeriodicJob, "periodic-job"},
		{EvalTriggerNodeDrain, "node-drain"},
		{EvalTriggerNodeUpdate, "node-update"},
		{EvalTriggerAllocStop, "alloc-stop"},
		{EvalTriggerScheduled, "scheduled"},
		{EvalTriggerRollingUpdate, "rolling-update"},
		{EvalTriggerDeploymentWatcher, "deployment-watcher"},
		{EvalTriggerFailedFollowUp, "failed-follow-up"},
		{EvalTriggerMaxPlans, "max-plan-attempts"},
		{EvalTriggerRetryFailedAlloc, "alloc-failure"},
		{EvalTriggerQueuedAllocs, "queued-allocs"},
		{EvalTriggerPreemption, "preemption"},
		{EvalTriggerScaling, "job-scaling"},
		{EvalTriggerMaxDisconnectTimeout, "max-disconnect-timeout"},
		{EvalTriggerReconnect, "reconnect"},
	}
	if len(AllEvalTriggers) != 17 {
		t.Fatalf("AllEvalTriggers has %d entries, want 17", len(AllEvalTriggers))
	}
	for i, w := range want {
		if w.got != w.want {
			t.Errorf("trigger %d = %q, want %q", i, w.got, w.want)
		}
		if AllEvalTriggers[i] != w.want {
			t.Errorf("AllEvalTriggers[%d] = %q, want %q (seed order)", i, AllEvalTriggers[i], w.want)
		}
	}
}

func TestEvalStatuses_FiveStored(t *testing.T) {
	want := []string{"pending", "blocked", "complete", "failed", "canceled"}
	got := []string{EvalStatusPending, EvalStatusBlocked, EvalStatusComplete, EvalStatusFailed, EvalStatusCanceled}
	if !slices.Equal(got, want) {
		t.Fatalf("status constants = %q, want %q", got, want)
	}
	if !slices.Equal(EvalStatuses, want) {
		t.Fatalf("EvalStatuses = %q, want %q", EvalStatuses, want)
	}
	// The quasi-statuses are observable but never stored.
	for _, quasi := range []string{EvalQuasiStatusDelayed, EvalQuasiStatusScheduling, EvalQuasiStatusApplying, EvalQuasiStatusDeleted} {
		if slices.Contains(EvalStatuses, quasi) {
			t.Errorf("quasi-status %q must not be a stored status", quasi)
		}
		e := testEval()
		e.Status = quasi
		if e.Validate() == nil {
			t.Errorf("an eval with quasi-status %q must not validate", quasi)
		}
	}
}
