package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestEvalCount_CountsMatchingEvals(t *testing.T) {
	_, c := testAgent(t, nil) // job evals stay pending: no job scheduler runs
	for _, id := range []string{"a", "b", "c"} {
		if _, _, err := c.Jobs().Register(testAPIJob(id), nil); err != nil {
			t.Fatal(err)
		}
	}
	all, _, err := c.Evaluations().Count(nil)
	if err != nil || all.Count != 3 {
		t.Fatalf("count: %+v %v", all, err)
	}
	one, _, err := c.Evaluations().Count(&api.QueryOptions{Filter: `JobID == "b"`})
	if err != nil || one.Count != 1 {
		t.Fatalf("filtered count: %+v %v", one, err)
	}
	if _, _, err := c.Evaluations().Count(&api.QueryOptions{Filter: `JobID ==`}); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad filter: %v", err)
	}
}

func TestRegions_ListsTheServersRegion(t *testing.T) {
	_, c := testAgent(t, nil)
	regions, err := c.Regions().List()
	if err != nil || len(regions) != 1 || regions[0] != "global" {
		t.Fatalf("regions: %v %v", regions, err)
	}
}
