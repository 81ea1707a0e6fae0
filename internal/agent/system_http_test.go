package agent

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/testutil"
)

// TestSystemGC_RunsForceGCCoreEval checks PUT /v1/system/gc writes a
// scheduled `_core` force-gc eval that the core scheduler completes.
func TestSystemGC_RunsForceGCCoreEval(t *testing.T) {
	_, c := testAgent(t, nil)
	if err := c.System().GarbageCollect(); err != nil {
		t.Fatalf("gc: %v", err)
	}
	testutil.WaitFor(t, 10*time.Second, "the force-gc eval to complete", func() bool {
		evals, _, _ := c.Evaluations().List(nil)
		for _, e := range evals {
			if e.JobID == "force-gc" && e.Type == "_core" && e.TriggeredBy == "scheduled" && e.Status == "complete" {
				return true
			}
		}
		return false
	})
}
