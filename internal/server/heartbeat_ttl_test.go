package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// TTLs are spread so the cluster does at most MaxHeartbeatsPerSecond: with
// two heartbeats a second and 30 nodes already heartbeating, the next node
// gets a TTL of at least 15 s (plus a stagger below that), well above
// MinHeartbeatTTL.
func TestHeartbeat_TTLScalesWithTheNodeCount(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) {
		c.MinHeartbeatTTL = time.Second
		c.MaxHeartbeatsPerSecond = 2
	})
	var last time.Duration
	for i := range 31 {
		n := clientNode(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))
		reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
		if err != nil {
			t.Fatal(err)
		}
		last = reply.HeartbeatTTL
	}
	if last < 15*time.Second || last >= 30*time.Second {
		t.Fatalf("31st node's TTL is %s, want 15 s plus a stagger below 15 s", last)
	}
}

// A silent node is marked down once its TTL plus the grace period has
// passed, not before.
func TestHeartbeat_DownOnlyAfterTTLPlusGrace(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) { c.HeartbeatGrace = 10 * time.Second })
	n := clientNode(nodeA)
	reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	p.expectDownAfter(n.ID, reply.HeartbeatTTL+p.srv.config.HeartbeatGrace, structs.NodeStatusReady)
}

// expectDownAfter steps the duties 1 ms before d from now and checks the
// node is still in status before, then at d and checks it is down.
func (p *pipeline) expectDownAfter(nodeID string, d time.Duration, before string) {
	p.t.Helper()
	p.clk.Advance(d - time.Millisecond)
	runSteps(p.t, p.srv)
	if got := p.nodeStatus(nodeID); got != before {
		p.t.Fatalf("node is %s 1 ms before %s passed, want %s", got, d, before)
	}
	p.clk.Advance(time.Millisecond)
	runSteps(p.t, p.srv)
	if got := p.nodeStatus(nodeID); got != structs.NodeStatusDown {
		p.t.Fatalf("node is %s once %s passed, want down", got, d)
	}
}

// A new leader gives every live node as long as the longest TTL a leader
// hands out for that many nodes, not MinHeartbeatTTL: a node told to beat
// within 15-30 s must not be marked down 11 s into a new leader's term.
func TestHeartbeat_NewLeaderWaitsOutTheLongestTTL(t *testing.T) {
	p := newPipeline(t, 1, completeAll, func(c *Config) {
		c.MinHeartbeatTTL = time.Second
		c.MaxHeartbeatsPerSecond = 2
	})
	var longest time.Duration
	var ids []string
	for i := range 31 {
		n := clientNode(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i))
		reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
		if err != nil {
			t.Fatal(err)
		}
		longest = max(longest, reply.HeartbeatTTL)
		ids = append(ids, n.ID)
	}
	if longest <= p.srv.config.MinHeartbeatTTL+p.srv.config.HeartbeatGrace {
		t.Fatalf("longest TTL %s is within MinHeartbeatTTL plus grace: the test shows nothing", longest)
	}
	p.stepLeadership(false)
	p.stepLeadership(true)
	p.clk.Advance(longest + p.srv.config.HeartbeatGrace - time.Millisecond)
	for _, id := range ids {
		if got := p.nodeStatus(id); got != structs.NodeStatusReady {
			t.Fatalf("node %s is %s before the longest TTL it could have been given plus grace passed", id, got)
		}
	}
	// 31 nodes at 2 a second: base 15.5 s, so the failover TTL is 31 s.
	p.clk.Advance(p.srv.leader.Heartbeats().FailoverTTL(len(ids)) - longest + time.Millisecond)
	waitFor(t, func() bool {
		for _, id := range ids {
			if p.nodeStatus(id) != structs.NodeStatusDown {
				return false
			}
		}
		return true
	})
}

// A new leader gives a disconnected node only what is left of its
// disconnect window (plus the grace period), counted from when it
// disconnected, not a fresh window and not none.
func TestHeartbeat_NewLeaderKeepsWhatIsLeftOfADisconnectWindow(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) { c.HeartbeatGrace = 10 * time.Second })
	n := clientNode(nodeA)
	reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
	if err != nil {
		t.Fatal(err)
	}
	job := testJob("web")
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 2 * time.Minute}
	p.register(job)
	runSteps(t, p.srv)
	p.allocOnNode("web", n.ID)
	p.clk.Advance(reply.HeartbeatTTL + p.srv.config.HeartbeatGrace)
	runSteps(t, p.srv)
	node, err := p.srv.State().NodeByID(nil, n.ID)
	if err != nil || node.Status != structs.NodeStatusDisconnected {
		t.Fatalf("silent node %+v (%v), want disconnected", node, err)
	}

	p.stepLeadership(false)
	p.clk.Advance(30 * time.Second)
	p.stepLeadership(true)
	runSteps(t, p.srv)
	left := structs.DisconnectDeadline(node, 2*time.Minute).Sub(p.clk.Now())
	if left <= 0 || left > 90*time.Second {
		t.Fatalf("%s of the window left, want at most 90 s", left)
	}
	p.expectDownAfter(n.ID, left+p.srv.config.HeartbeatGrace, structs.NodeStatusDisconnected)
}
