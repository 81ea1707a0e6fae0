package structs

import (
	"bytes"
	"testing"

	"github.com/hashicorp/go-msgpack/v2/codec"
)

func wireJob(version uint64) *Job {
	return &Job{ID: "web", Namespace: "default", Version: version, JobModifyIndex: 10 + version,
		TaskGroups: []*TaskGroup{{Name: "g", Count: 2}}}
}

// roundTrip encodes and decodes v as the RPC codec does.
func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	var buf bytes.Buffer
	if err := codec.NewEncoder(&buf, MsgpackHandle).Encode(v); err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := codec.NewDecoder(&buf, MsgpackHandle).Decode(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A plan's placements of its own job travel without the job and come
// back with the plan's; a placement of another version keeps its own,
// and the sender's plan is left as it was.
func TestPlanCompact_DropsThePlansJobFromItsPlacements(t *testing.T) {
	job, older := wireJob(2), wireJob(1)
	own := &Allocation{ID: "a1", NodeID: "n1", Job: job}
	decodedCopy := &Allocation{ID: "a2", NodeID: "n1", Job: wireJob(2)}
	other := &Allocation{ID: "a3", NodeID: "n2", Job: older}
	stop := &Allocation{ID: "s1", NodeID: "n2", Job: older}
	plan := &Plan{Job: job,
		NodeAllocation: map[string][]*Allocation{"n1": {own, decodedCopy}, "n2": {other}},
		NodeUpdate:     map[string][]*Allocation{"n2": {stop}}}

	sent := plan.Compact()
	for _, a := range sent.NodeAllocation["n1"] {
		if a.Job != nil {
			t.Errorf("compact placement %s still carries the plan's job", a.ID)
		}
	}
	if sent.NodeAllocation["n2"][0].Job != older {
		t.Error("a placement of another job version lost its job")
	}
	if sent.NodeUpdate["n2"][0].Job != older {
		t.Error("a stop lost its job")
	}
	if own.Job != job || decodedCopy.Job == nil {
		t.Error("Compact changed the sender's plan")
	}

	got := roundTrip(t, sent)
	for _, a := range got.NodeAllocation["n1"] {
		if a.Job != nil {
			t.Errorf("received placement %s carries a job", a.ID)
		}
	}
	if j := got.NodeAllocation["n2"][0].Job; j == nil || j.Version != 1 {
		t.Errorf("placement of version 1 arrived with job %+v", j)
	}
}

// A result for a compact plan comes back with job-less placements; the
// follower gives them its plan's job, and keeps the job a placement has.
func TestPlanResultExpand_RestoresThePlansJob(t *testing.T) {
	job, older := wireJob(3), wireJob(2)
	res := roundTrip(t, &PlanResult{NodeAllocation: map[string][]*Allocation{
		"n1": {{ID: "a1"}, {ID: "a2", Job: older}}}})
	res.Expand(job)
	if got := res.NodeAllocation["n1"][0].Job; got != job {
		t.Errorf("a1 has job %p, want the plan's %p", got, job)
	}
	if got := res.NodeAllocation["n1"][1].Job; got == nil || got.Version != 2 {
		t.Errorf("a2 lost its own job: %+v", got)
	}
}
