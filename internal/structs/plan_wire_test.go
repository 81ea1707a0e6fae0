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

// Only the placement of each group that the raft entry lists last (nodes
// in ID order) travels with metrics; the sender's plan keeps all of them.
func TestPlanCompact_KeepsMetricsWhereTheEntryKeepsThem(t *testing.T) {
	placed := func(id, group string) *Allocation {
		return &Allocation{ID: id, Namespace: "default", JobID: "web", TaskGroup: group, Metrics: &AllocMetric{NodesEvaluated: 1}}
	}
	plan := &Plan{NodeAllocation: map[string][]*Allocation{
		"n3": {placed("g-on-n3", "g")},
		"n1": {placed("g-on-n1", "g"), placed("h-on-n1", "h")},
		"n2": {placed("g-on-n2-a", "g"), placed("g-on-n2-b", "g")},
	}}
	want := map[string]bool{"g-on-n3": true, "h-on-n1": true}
	for _, allocs := range roundTrip(t, plan.Compact()).NodeAllocation {
		for _, a := range allocs {
			if got := a.Metrics != nil; got != want[a.ID] {
				t.Errorf("%s sent with metrics = %v, want %v", a.ID, got, want[a.ID])
			}
		}
	}
	for _, allocs := range plan.NodeAllocation {
		for _, a := range allocs {
			if a.Metrics == nil {
				t.Errorf("Compact dropped the sender's metrics of %s", a.ID)
			}
		}
	}
}

// A result that took its parts from the plan as they are travels as their
// names and comes back as the sender's own slices; a result holding
// anything else does not travel by reference.
func TestPlanResultByReference_ResolvesToTheSendersPlan(t *testing.T) {
	dep := &Deployment{ID: "d1"}
	plan := &Plan{
		NodeAllocation:    map[string][]*Allocation{"n1": {{ID: "a1"}}, "n2": {{ID: "a2"}}},
		NodeUpdate:        map[string][]*Allocation{"n3": {{ID: "s1"}}},
		Deployment:        dep,
		DeploymentUpdates: []*DeploymentStatusUpdate{{DeploymentID: "d0"}},
	}
	res := &PlanResult{
		NodeAllocation: map[string][]*Allocation{"n1": plan.NodeAllocation["n1"]},
		NodeUpdate:     map[string][]*Allocation{"n3": plan.NodeUpdate["n3"]},
		Deployment:     dep, RejectedNodes: []string{"n2"}, RefreshIndex: 7, AllocIndex: 9, EvalFinished: false,
	}
	rest, accepted, ok := res.ByReference(plan)
	if !ok {
		t.Fatal("a result of the plan's own parts did not go by reference")
	}
	if rest.NodeAllocation != nil || rest.NodeUpdate != nil || rest.Deployment != nil {
		t.Fatalf("the result by reference still carries parts: %+v", rest)
	}
	got := roundTrip(t, &PlanSubmitResponse{Result: rest, Accepted: accepted})
	if err := got.Result.Resolve(plan, got.Accepted); err != nil {
		t.Fatal(err)
	}
	r := got.Result
	if !sameSlice(r.NodeAllocation["n1"], plan.NodeAllocation["n1"]) || len(r.NodeAllocation) != 1 {
		t.Errorf("placements %v, want the plan's n1 only", r.NodeAllocation)
	}
	if !sameSlice(r.NodeUpdate["n3"], plan.NodeUpdate["n3"]) || len(r.NodePreemptions) != 0 {
		t.Errorf("stops %v preemptions %v", r.NodeUpdate, r.NodePreemptions)
	}
	if r.Deployment != dep || r.DeploymentUpdates != nil {
		t.Errorf("deployment %v, updates %v: want the plan's deployment and no updates", r.Deployment, r.DeploymentUpdates)
	}
	if r.RefreshIndex != 7 || r.AllocIndex != 9 || len(r.RejectedNodes) != 1 {
		t.Errorf("indexes and rejections lost: %+v", r)
	}

	changed := &PlanResult{NodeAllocation: map[string][]*Allocation{"n1": {{ID: "a1"}}}}
	if _, _, ok := changed.ByReference(plan); ok {
		t.Error("a result with its own copy of a placement went by reference")
	}
	if err := (&PlanResult{}).Resolve(plan, &PlanAcceptance{Placements: []string{"n9"}}); err == nil {
		t.Error("resolving a node the plan does not have succeeded")
	}
}
