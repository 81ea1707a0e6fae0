package agent

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// The CLI resolves every job name through the job list and dereferences
// the match's JobSummary; periodic force and dispatch list with filters on
// the job's blocks.
func TestJobList_StubsCarrySummariesAndFilterSeesBlocks(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("web"), nil); err != nil {
		t.Fatal(err)
	}
	cron := testAPIJob("cron")
	cron.Type = pointer("batch")
	cron.Periodic = &api.PeriodicConfig{Enabled: pointer(true), Spec: pointer("*/5 * * * *"), SpecType: pointer("cron")}
	if _, _, err := c.Jobs().Register(cron, nil); err != nil {
		t.Fatal(err)
	}
	stubs, _, err := c.Jobs().List(nil)
	if err != nil || len(stubs) != 2 {
		t.Fatalf("list: %v %v", stubs, err)
	}
	for _, s := range stubs {
		if s.JobSummary == nil || s.JobSummary.Namespace != "default" || s.JobSummary.JobID != s.ID {
			t.Fatalf("%s: JobSummary %+v", s.ID, s.JobSummary)
		}
		if _, ok := s.JobSummary.Summary["web"]; !ok {
			t.Fatalf("%s: no summary for group web: %+v", s.ID, s.JobSummary.Summary)
		}
	}
	periodic, _, err := c.Jobs().List(&api.QueryOptions{Filter: `Periodic is not nil`})
	if err != nil || len(periodic) != 1 || periodic[0].ID != "cron" {
		t.Fatalf("Periodic is not nil: %v %v", periodic, err)
	}
	dispatchable, _, err := c.Jobs().List(&api.QueryOptions{Filter: `ParameterizedJob is not nil`})
	if err != nil || len(dispatchable) != 0 {
		t.Fatalf("ParameterizedJob is not nil: %v %v", dispatchable, err)
	}
}
