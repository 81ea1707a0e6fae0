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
	got.Expand()
	for _, a := range got.NodeAllocation["n1"] {
		if a.Job != got.Job {
			t.Errorf("expanded placement %s has job %p, want the plan's %p", a.ID, a.Job, got.Job)
		}
	}
	if j := got.NodeAllocation["n2"][0].Job; j == nil || j.Version != 1 {
		t.Errorf("placement of version 1 came back with job %+v", j)
	}
}

// A result goes back compact and is expanded with the submitter's job.
func TestPlanResultCompact_RoundTrip(t *testing.T) {
	job := wireJob(3)
	res := &PlanResult{NodeAllocation: map[string][]*Allocation{"n1": {{ID: "a1", Job: job}}}}
	sent := res.Compact(job)
	if sent.NodeAllocation["n1"][0].Job != nil {
		t.Fatal("compact result placement still carries the job")
	}
	if res.NodeAllocation["n1"][0].Job != job {
		t.Fatal("Compact changed the leader's result")
	}
	got := roundTrip(t, sent)
	got.Expand(job)
	if got.NodeAllocation["n1"][0].Job != job {
		t.Fatal("expanded result placement does not carry the submitter's job")
	}
}
