package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

func TestEvalDelete_OnlyTerminalEvals(t *testing.T) {
	a, c := runningJob(t)
	done := ""
	for start := time.Now(); done == "" && time.Since(start) < 10*time.Second; {
		evals, _, _ := c.Jobs().Evaluations("web", nil)
		for _, e := range evals {
			if e.Status == "complete" {
				done = e.ID
			}
		}
	}
	if _, err := c.Evaluations().Delete([]string{done}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Evaluations().Info(done, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("deleted eval still readable: %v", err)
	}
	// A pending eval is refused and nothing is deleted.
	big := testAPIJob("big")
	big.TaskGroups[0].Tasks[0].Resources.CPU = pointer(1_000_000)
	resp, _, err := c.Jobs().Register(big, nil)
	if err != nil {
		t.Fatal(err)
	}
	blockedID := ""
	testutil.WaitFor(t, 10*time.Second, "a blocked eval", func() bool {
		if e, _, err := c.Evaluations().Info(resp.EvalID, nil); err == nil {
			blockedID = e.BlockedEval
		}
		return blockedID != ""
	})
	before := a.Server().State().LatestIndex()
	if _, err := c.Evaluations().Delete([]string{blockedID}, nil); err == nil || !strings.Contains(err.Error(), "blocked") {
		t.Fatalf("deleting a blocked eval: %v", err)
	}
	if a.Server().State().LatestIndex() != before {
		t.Fatal("refused delete moved the index")
	}
}

// A filter selects terminal evals only; a bad filter is a 400 that deletes
// nothing.
func TestEvalDelete_ByFilter(t *testing.T) {
	a, c := runningJob(t)
	var done []string
	testutil.WaitFor(t, 10*time.Second, "a complete eval", func() bool {
		evals, _, _ := c.Jobs().Evaluations("web", nil)
		for _, e := range evals {
			if e.Status == "complete" {
				done = append(done, e.ID)
			}
		}
		return len(done) > 0
	})
	before := a.Server().State().LatestIndex()
	if _, _, err := c.Evaluations().DeleteOpts(&api.EvalDeleteRequest{Filter: `Nope ==`}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad filter: %v", err)
	}
	if a.Server().State().LatestIndex() != before {
		t.Fatal("refused delete moved the index")
	}
	resp, _, err := c.Evaluations().DeleteOpts(&api.EvalDeleteRequest{Filter: `JobID == "web"`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count < len(done) {
		t.Fatalf("deleted %d evals, want at least %d", resp.Count, len(done))
	}
	for _, id := range done {
		if _, _, err := c.Evaluations().Info(id, nil); err == nil || !strings.Contains(err.Error(), "404") {
			t.Fatalf("deleted eval %s still readable: %v", id, err)
		}
	}
}
