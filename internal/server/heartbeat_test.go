package server

import (
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

func clientNode(id string) *structs.Node {
	n := simNode(id, "dc1")
	n.SecretID = "secret-" + id[:8]
	return n
}

func (p *pipeline) nodeStatus(id string) string {
	n, _ := p.srv.State().NodeByID(nil, id)
	if n == nil {
		return ""
	}
	return n.Status
}

func completeAll(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
	return complete(e, pl)
}

func TestHeartbeat_MissedTTLMarksNodeDownWithNodeUpdateEvals(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
	if err != nil {
		t.Fatal(err)
	}
	if reply.HeartbeatTTL < 10*time.Second || reply.HeartbeatTTL > 20*time.Second {
		t.Fatalf("TTL %v outside [min, 2*min]", reply.HeartbeatTTL)
	}
	p.waitStatus(p.register(systemJob("sys", "dc1")), structs.EvalStatusComplete)
	// Heartbeats within the TTL keep it alive.
	for i := 0; i < 3; i++ {
		p.clk.Advance(reply.HeartbeatTTL / 2)
		if reply, err = NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID}); err != nil {
			t.Fatal(err)
		}
	}
	if p.nodeStatus(n.ID) != structs.NodeStatusReady {
		t.Fatalf("heartbeating node is %s", p.nodeStatus(n.ID))
	}
	p.clk.Advance(reply.HeartbeatTTL + 10*time.Second + time.Millisecond)
	waitFor(t, func() bool { return p.nodeStatus(n.ID) == structs.NodeStatusDown })
	var down []*structs.Evaluation
	waitFor(t, func() bool {
		down = nil
		for _, e := range p.evalsOf("sys") {
			if e.TriggeredBy == structs.EvalTriggerNodeUpdate && e.NodeID == n.ID {
				down = append(down, e)
			}
		}
		return len(down) == 1
	})
	// The node comes back: ready again, with another node-update eval.
	if _, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID}); err != nil {
		t.Fatal(err)
	}
	if p.nodeStatus(n.ID) != structs.NodeStatusReady {
		t.Fatalf("returning node is %s", p.nodeStatus(n.ID))
	}
}

func TestHeartbeat_RejectsWrongSecretAndUnknownNode(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	if _, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: "wrong"}); ErrorCode(err) != 403 {
		t.Fatalf("wrong secret: %v", err)
	}
	if _, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: nodeB, SecretID: "x"}); ErrorCode(err) != 404 {
		t.Fatalf("unknown node: %v", err)
	}
}

func TestHeartbeat_TimersRearmedWhenANewLeaderTakesOver(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	p.stepLeadership(false)
	p.clk.Advance(time.Hour) // no leader: nobody marks it down
	if p.nodeStatus(n.ID) != structs.NodeStatusReady {
		t.Fatalf("node marked %s without a leader", p.nodeStatus(n.ID))
	}
	p.stepLeadership(true)
	// The node may have been given up to twice MinHeartbeatTTL (the
	// stagger): 2 x 10 s + 10 s grace.
	p.clk.Advance(29 * time.Second)
	if p.nodeStatus(n.ID) != structs.NodeStatusReady {
		t.Fatal("node marked down before the new leader's failover TTL and grace passed")
	}
	p.clk.Advance(2 * time.Second)
	waitFor(t, func() bool { return p.nodeStatus(n.ID) == structs.NodeStatusDown })
}

// allocOnNode writes an alloc of the job's register eval onto the node.
func (p *pipeline) allocOnNode(job, nodeID string) *structs.Allocation {
	p.t.Helper()
	e := p.evalByTrigger(job, structs.EvalTriggerJobRegister)
	a := placeOn(e, p.srv.State().Snapshot(), nodeID, 100, 64).NodeAllocation[nodeID][0]
	if _, err := p.srv.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{a}}); err != nil {
		p.t.Fatal(err)
	}
	return a
}

func TestEvalTrigger_Reconnect_DisconnectedNodeReturns(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	p.allocOnNode("web", n.ID)
	if _, err := (&NodeEndpoint{srv: p.srv}).setStatus(n.ID, structs.NodeStatusDisconnected); err != nil {
		t.Fatal(err)
	}
	reply, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.EvalIDs) != 1 {
		t.Fatalf("%d evals on reconnect, want 1", len(reply.EvalIDs))
	}
	if e := p.eval(reply.EvalIDs[0]); e.TriggeredBy != structs.EvalTriggerReconnect || e.JobID != "web" || e.NodeID != n.ID {
		t.Fatalf("reconnect eval %+v", e)
	}
}

func TestEvalTrigger_AllocFailure_ClientReportsFailedAlloc(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	other := clientNode(nodeB)
	for _, node := range []*structs.Node{n, other} {
		if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: node}); err != nil {
			t.Fatal(err)
		}
	}
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	mine := p.allocOnNode("web", n.ID)
	failed := &structs.Allocation{ID: mine.ID, ClientStatus: structs.AllocClientStatusFailed,
		TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateDead, Failed: true}}}
	// Another node may not report this node's alloc.
	if _, err := NodeUpdateAlloc.Call(context.Background(), p.srv, &structs.AllocClientUpdateArgs{NodeID: other.ID, SecretID: other.SecretID, Allocs: []*structs.Allocation{failed}}); err != nil {
		t.Fatal(err)
	}
	if a, _ := p.srv.State().AllocByID(nil, mine.ID); a.ClientStatus == structs.AllocClientStatusFailed {
		t.Fatal("a node updated another node's alloc")
	}
	if _, err := NodeUpdateAlloc.Call(context.Background(), p.srv, &structs.AllocClientUpdateArgs{NodeID: n.ID, SecretID: n.SecretID, Allocs: []*structs.Allocation{failed}}); err != nil {
		t.Fatal(err)
	}
	e := p.evalByTrigger("web", structs.EvalTriggerRetryFailedAlloc)
	if e.PreviousEval != "" || e.Status == "" {
		t.Fatalf("alloc-failure eval %+v", e)
	}
	// Reporting the same failure again creates no second eval.
	if _, err := NodeUpdateAlloc.Call(context.Background(), p.srv, &structs.AllocClientUpdateArgs{NodeID: n.ID, SecretID: n.SecretID, Allocs: []*structs.Allocation{failed}}); err != nil {
		t.Fatal(err)
	}
	p.evalByTrigger("web", structs.EvalTriggerRetryFailedAlloc)
}

func TestGetClientAllocs_BlocksUntilTheNodesAllocsChange(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	first, err := NodeGetClientAllocs.Call(t.Context(), p.srv, &structs.NodeAllocsArgs{NodeID: n.ID, SecretID: n.SecretID})
	if err != nil || len(first.Allocs) != 0 {
		t.Fatalf("first: %v %d", err, len(first.Allocs))
	}
	done := make(chan *structs.NodeAllocsResponse, 1)
	go func() {
		r, _ := NodeGetClientAllocs.Call(t.Context(), p.srv, &structs.NodeAllocsArgs{NodeID: n.ID, SecretID: n.SecretID,
			QueryOptions: structs.QueryOptions{MinQueryIndex: first.Index, MaxQueryTime: time.Minute}})
		done <- r
	}()
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	a := p.allocOnNode("web", n.ID)
	select {
	case r := <-done:
		if len(r.Allocs) != 1 || r.Allocs[0].ID != a.ID || r.Allocs[0].Job == nil {
			t.Fatalf("woken pull: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocking alloc pull did not wake")
	}
}
