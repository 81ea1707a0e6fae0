package server

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

const (
	nodeA = "8d3c3c6e-0c1a-4f1a-9a55-1b2c3d4e5f60"
	nodeB = "9e4d4d7f-1d2b-4a2b-8b66-2c3d4e5f6071"
)

func simNode(id, dc string) *structs.Node {
	n := pipelineNode(id, 4000, 8192)
	n.Datacenter, n.ComputedClass = dc, ""
	return n
}

func systemJob(id string, dcs ...string) *structs.Job {
	j := testJob(id)
	j.Type, j.Datacenters = structs.JobTypeSystem, dcs
	j.TaskGroups[0].Count = 1
	return j
}

// TestEvalTrigger_NodeUpdate_OnePerJobOnNodePlusSystemJobs: a node going
// down writes, in the same raft entry as its status, one node-update eval
// per job with allocs on it plus one per system job covering its
// datacenter.
func TestEvalTrigger_NodeUpdate_OnePerJobOnNodePlusSystemJobs(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return complete(e, pl)
	})
	if _, err := p.srv.RegisterNode(simNode(nodeA, "dc1")); err != nil {
		t.Fatal(err)
	}
	for _, job := range []*structs.Job{testJob("svc-1"), testJob("svc-2"), testJob("elsewhere"), systemJob("sys-dc1", "dc*"), systemJob("sys-dc2", "dc2")} {
		p.waitStatus(p.register(job), structs.EvalStatusComplete)
	}
	for _, job := range []string{"svc-1", "svc-2"} { // allocs of two service jobs on the node
		e := p.evalByTrigger(job, structs.EvalTriggerJobRegister)
		a := placeOn(e, p.srv.State().Snapshot(), nodeA, 100, 64).NodeAllocation[nodeA][0]
		if _, err := p.srv.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{a}}); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := (&NodeEndpoint{srv: p.srv}).setStatus(nodeA, structs.NodeStatusDown)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.EvalIDs) != 3 {
		t.Fatalf("%d node-update evals, want 3 (svc-1, svc-2, sys-dc1)", len(reply.EvalIDs))
	}
	node, _ := p.srv.State().NodeByID(nil, nodeA)
	for _, id := range reply.EvalIDs {
		e := p.eval(id)
		if e.TriggeredBy != structs.EvalTriggerNodeUpdate || e.NodeID != nodeA || e.CreateIndex != node.ModifyIndex {
			t.Errorf("eval %+v: not a node-update eval written with the status change", e)
		}
		if e.JobID == "elsewhere" || e.JobID == "sys-dc2" {
			t.Errorf("eval for unrelated job %s", e.JobID)
		}
	}
	// A repeated status is no change: no evals.
	again, err := (&NodeEndpoint{srv: p.srv}).setStatus(nodeA, structs.NodeStatusDown)
	if err != nil || len(again.EvalIDs) != 0 {
		t.Fatalf("repeat status: %v, %d evals", err, len(again.EvalIDs))
	}
}

func TestNodeRegister_ComputesClassAndRejectsBadInput(t *testing.T) {
	p := newPipeline(t, 1, nil)
	if _, err := p.srv.RegisterNode(simNode(nodeB, "dc1")); err != nil {
		t.Fatal(err)
	}
	n, _ := p.srv.State().NodeByID(nil, nodeB)
	if n.ComputedClass == "" {
		t.Error("no computed class")
	}
	before := p.srv.State().LatestIndex()
	bad := simNode("not-a-uuid", "")
	if _, err := p.srv.RegisterNode(bad); ErrorCode(err) != 400 {
		t.Errorf("bad node: %v", err)
	}
	if _, err := (&NodeEndpoint{srv: p.srv}).setStatus(nodeB, "sleepy"); ErrorCode(err) != 400 {
		t.Errorf("bad status: %v", err)
	}
	if _, err := (&NodeEndpoint{srv: p.srv}).setStatus(nodeA, "down"); ErrorCode(err) != 404 {
		t.Errorf("unknown node: %v", err)
	}
	if after := p.srv.State().LatestIndex(); after != before {
		t.Errorf("rejected node requests moved the index %d -> %d", before, after)
	}
}
