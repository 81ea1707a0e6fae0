package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// A batch group's max_run_duration stops its alloc through a real client
// once it has run that long: the task is killed and the alloc reports
// complete with Nomad's description, and is not replaced.
func TestMaxRunDuration_StopsTheBatchAlloc(t *testing.T) {
	_, c := clientTestAgent(t)
	job := mockServiceJob("capped", 1)
	job.Type = pointer("batch")
	job.TaskGroups[0].MaxRunDuration = pointer(time.Second)
	alloc := runJob(t, c, job)
	testutil.WaitFor(t, 20*time.Second, "the alloc stopped by max_run_duration", func() (bool, string) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		return a.ClientStatus == "complete" && a.ClientDescription == "allocation exceeded max_run_duration",
			fmt.Sprintf("%s %q %v", a.ClientStatus, a.ClientDescription, taskEventTypes(a, "t"))
	})
	a, _, _ := c.Allocations().Info(alloc.ID, nil)
	if evs := taskEventTypes(a, "t"); !slices.Contains(evs, "Killing") {
		t.Fatalf("task events %v: want the kill", evs)
	}
	stubs, _, err := c.Jobs().Allocations("capped", true, nil)
	if err != nil || len(stubs) != 1 {
		t.Fatalf("allocs %d, %v: a completed batch alloc was replaced", len(stubs), err)
	}
	stored, _, _ := c.Jobs().Info("capped", nil)
	if d := stored.TaskGroups[0].MaxRunDuration; d == nil || *d != time.Second {
		t.Fatalf("stored max_run_duration %v", d)
	}
}

// A service job's max_run_duration is refused at register, naming the
// field: Nomad only has it for batch and sysbatch jobs.
func TestMaxRunDuration_RefusedOnServiceJobs(t *testing.T) {
	_, c := clientTestAgent(t)
	job := mockServiceJob("svc-capped", 1)
	job.TaskGroups[0].MaxRunDuration = pointer(time.Second)
	_, _, err := c.Jobs().Register(job, nil)
	var herr api.UnexpectedResponseError
	if err == nil || !errors.As(err, &herr) || herr.StatusCode() != 400 {
		t.Fatalf("register: %v, want a 400", err)
	}
	if !strings.Contains(err.Error(), "MaxRunDuration") {
		t.Fatalf("error %q does not name the field", err)
	}
}
