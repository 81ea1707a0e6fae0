package server

import (
	"context"
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// `node eval` writes one node-update eval per job with a live alloc on
// the node, even while that job's last eval is done (no coalescing: the
// operator asked for a new look); the reply names the evals and the node's
// modify index.
func TestNodeEvaluate_OneEvalPerJobOnTheNode(t *testing.T) {
	p := newSteppedPipeline(t)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	p.register(testJob("web"))
	runSteps(t, p.srv)
	second := p.allocOnNode("web", n.ID).Copy()
	second.ID = "web-second-alloc" // two allocs of one job: still one eval
	if _, err := p.srv.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{second}}); err != nil {
		t.Fatal(err)
	}
	before := len(p.evalsOf("web"))

	reply, err := NodeEvaluate.Call(context.Background(), p.srv, &structs.NodeEvaluateArgs{NodeID: n.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.EvalIDs) != 1 || reply.EvalCreateIndex == 0 || reply.Index != reply.EvalCreateIndex {
		t.Fatalf("reply %+v, want one eval created at the reply's index", reply)
	}
	e := p.eval(reply.EvalIDs[0])
	if e == nil || e.JobID != "web" || e.NodeID != n.ID || e.TriggeredBy != structs.EvalTriggerNodeUpdate || e.Status != structs.EvalStatusPending {
		t.Fatalf("eval %+v, want a pending node-update eval of web for the node", e)
	}
	stored, _ := p.srv.State().NodeByID(nil, n.ID)
	if reply.NodeModifyIndex != stored.ModifyIndex {
		t.Fatalf("reply node modify index %d, node's is %d", reply.NodeModifyIndex, stored.ModifyIndex)
	}
	if got := len(p.evalsOf("web")); got != before+1 {
		t.Fatalf("%d evals of web, want %d", got, before+1)
	}
}

// A node without allocs (and no system job) gets no eval: nothing is
// written, and the reply carries the current index.
func TestNodeEvaluate_EmptyNodeWritesNothing(t *testing.T) {
	p := newSteppedPipeline(t)
	n := clientNode(nodeB)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	latest := p.srv.State().LatestIndex()
	reply, err := NodeEvaluate.Call(context.Background(), p.srv, &structs.NodeEvaluateArgs{NodeID: n.ID})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := p.srv.State().NodeByID(nil, n.ID)
	if len(reply.EvalIDs) != 0 || reply.Index != latest || reply.NodeModifyIndex != stored.ModifyIndex || p.srv.State().LatestIndex() != latest {
		t.Fatalf("reply %+v (state at %d, node modified at %d): want no eval and nothing written", reply, latest, stored.ModifyIndex)
	}
}

// An unknown node is a not-found error.
func TestNodeEvaluate_UnknownNode(t *testing.T) {
	p := newSteppedPipeline(t)
	_, err := NodeEvaluate.Call(context.Background(), p.srv, &structs.NodeEvaluateArgs{NodeID: nodeA})
	if !errors.Is(err, structs.ErrNodeNotFound) {
		t.Fatalf("err = %v, want node not found", err)
	}
}
