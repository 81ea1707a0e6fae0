package agent

import (
	"testing"
	"time"
)

// TestSystemGC_RunsForceGCCoreEval checks PUT /v1/system/gc writes a
// scheduled `_core` force-gc eval that the core scheduler completes.
func TestSystemGC_RunsForceGCCoreEval(t *testing.T) {
	_, c := testAgent(t, nil)
	if err := c.System().GarbageCollect(); err != nil {
		t.Fatalf("gc: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		evals, _, _ := c.Evaluations().List(nil)
		for _, e := range evals {
			if e.JobID == "force-gc" && e.Type == "_core" && e.TriggeredBy == "scheduled" && e.Status == "complete" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("force-gc eval never completed")
}
