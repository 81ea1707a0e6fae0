package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestDispatch_PayloadWrittenToLocal: a dispatched job's payload is in
// the task's local/<file> before the task starts.
func TestDispatch_PayloadWrittenToLocal(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("report", "cat local/in/payload.txt")
	job.Type = pointer("batch")
	job.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "required"}
	job.TaskGroups[0].Tasks[0].DispatchPayload = &api.DispatchPayloadConfig{File: "in/payload.txt"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Dispatch("report", nil, []byte("the payload\n"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var alloc *api.Allocation
	eventually(t, 20*time.Second, func() string {
		stubs, _, err := c.Jobs().Allocations(resp.DispatchedJobID, false, nil)
		if err != nil || len(stubs) == 0 {
			return "no alloc yet"
		}
		if stubs[0].ClientStatus != api.AllocClientStatusComplete {
			return "alloc " + stubs[0].ClientStatus
		}
		alloc, _, err = c.Allocations().Info(stubs[0].ID, nil)
		if err != nil {
			return err.Error()
		}
		return ""
	})
	if out := readLogs(t, c, alloc, "stdout", "start", 0); out != "the payload\n" {
		t.Errorf("task read %q from local/in/payload.txt, want the payload", out)
	}
}
