package chaos

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestCountDue: a delayed eval (a reschedule waiting out its backoff) is
// pending but not stuck; one whose WaitUntil has passed is due again.
func TestCountDue(t *testing.T) {
	now := time.Unix(1000, 0)
	evals := []*api.Evaluation{
		{ID: "plain"},
		{ID: "delayed", WaitUntil: now.Add(30 * time.Second)},
		{ID: "due", WaitUntil: now.Add(-time.Second)},
	}
	if got := countDue(evals, now); got != 2 {
		t.Fatalf("countDue = %d, want 2 (the delayed eval is waiting, not stuck)", got)
	}
}
