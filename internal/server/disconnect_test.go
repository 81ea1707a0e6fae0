package server

import (
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// newRealPipeline is a pipeline whose schedulers are the built-in ones on
// the pipeline's manual clock: what these tests check is written by the
// real scheduler, not by a script.
func newRealPipeline(t *testing.T, opts ...func(*Config)) *pipeline {
	t.Helper()
	real := func(c *Config) { c.Schedulers = scheduler.Builtins(scheduler.Deps{Now: c.Clock.Now}) }
	return newPipeline(t, 1, nil, append([]func(*Config){real}, opts...)...)
}

// clientRegister registers a schedulable node as its client would.
func (p *pipeline) clientRegister(i int) *structs.Node {
	p.t.Helper()
	n := e2eNode(i, 4000, 8192)
	n.SecretID = "secret-" + n.ID[:8]
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		p.t.Fatal(err)
	}
	return n
}

func (p *pipeline) heartbeat(n *structs.Node) {
	p.t.Helper()
	if _, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID}); err != nil {
		p.t.Fatal(err)
	}
}

// advanceKeeping moves the clock by d in small steps, heartbeating the
// nodes that stay alive, and waits for cond. Before each step it waits for
// the workers to settle: the clock is manual but the workers are real
// goroutines, and moving time past a slow worker's nack timeout would
// redeliver an eval it already finished.
func (p *pipeline) advanceKeeping(d time.Duration, alive []*structs.Node, cond func() bool) {
	p.t.Helper()
	for step := time.Duration(0); step < d; step += 5 * time.Second {
		for _, n := range alive {
			p.heartbeat(n)
		}
		p.waitWorkersSettled()
		p.clk.Advance(5 * time.Second)
	}
	if cond != nil {
		waitFor(p.t, cond)
	}
}

// waitWorkersSettled waits until the broker holds no ready or unacked eval.
func (p *pipeline) waitWorkersSettled() {
	p.t.Helper()
	waitFor(p.t, func() bool {
		st := p.srv.broker.Stats()
		return st.TotalReady == 0 && st.TotalUnacked == 0
	})
}

func (p *pipeline) allocsOn(job, nodeID string) []*structs.Allocation {
	var out []*structs.Allocation
	allocs, _ := p.srv.State().AllocsByJob(nil, "default", job, false)
	for _, a := range allocs {
		if a.NodeID == nodeID {
			out = append(out, a)
		}
	}
	return out
}

func countWhere(allocs []*structs.Allocation, ok func(*structs.Allocation) bool) int {
	n := 0
	for _, a := range allocs {
		if ok(a) {
			n++
		}
	}
	return n
}

func (p *pipeline) evalsWithTrigger(job, trigger string) []*structs.Evaluation {
	var out []*structs.Evaluation
	for _, e := range p.evalsOf(job) {
		if e.TriggeredBy == trigger {
			out = append(out, e)
		}
	}
	return out
}

// disconnectSetup: a job with a disconnect block runs 2 allocs on node a,
// node b joins, and a misses its heartbeats. It returns once a is
// disconnected, its allocs unknown and replaced on b.
func disconnectSetup(t *testing.T, reconcile string) (p *pipeline, a, b *structs.Node) {
	p = newRealPipeline(t)
	a = p.clientRegister(1)
	job := e2eJob("web", 2, 100, 64)
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 2 * time.Minute, Reconcile: reconcile}
	p.waitStatus(p.register(job), structs.EvalStatusComplete)
	b = p.clientRegister(2)
	p.advanceKeeping(40*time.Second, []*structs.Node{b}, func() bool {
		return p.nodeStatus(a.ID) == structs.NodeStatusDisconnected
	})
	waitFor(t, func() bool {
		onA, onB := p.allocsOn("web", a.ID), p.allocsOn("web", b.ID)
		return countWhere(onA, func(x *structs.Allocation) bool { return x.ClientStatus == structs.AllocClientStatusUnknown }) == 2 &&
			countWhere(onB, func(x *structs.Allocation) bool { return !x.TerminalStatus() }) == 2
	})
	return p, a, b
}

// A node whose allocs tolerate a disconnect goes disconnected, not down;
// its node-update eval writes exactly one max-disconnect-timeout eval
// (new.PreviousEval = the node-update eval), which, once lost_after has
// passed, marks the allocs lost.
func TestEvalTrigger_MaxDisconnectTimeout_OneEvalThenAllocsLost(t *testing.T) {
	p, a, b := disconnectSetup(t, "")
	updates := p.evalsWithTrigger("web", structs.EvalTriggerNodeUpdate)
	timeouts := p.evalsWithTrigger("web", structs.EvalTriggerMaxDisconnectTimeout)
	if len(updates) != 1 || len(timeouts) != 1 {
		t.Fatalf("%d node-update and %d max-disconnect-timeout evals, want 1 and 1", len(updates), len(timeouts))
	}
	timeout := timeouts[0]
	node, _ := p.srv.State().NodeByID(nil, a.ID)
	if timeout.PreviousEval != updates[0].ID || !timeout.WaitUntil.Equal(time.Unix(node.StatusUpdatedAt, 0).Add(2*time.Minute)) {
		t.Fatalf("timeout eval previous %q wait until %v", timeout.PreviousEval, timeout.WaitUntil)
	}
	// Just past lost_after (the node is marked down only HeartbeatGrace
	// later, so the timeout eval is what marks the allocs lost).
	p.advanceKeeping(timeout.WaitUntil.Sub(p.clk.Now())+time.Second, []*structs.Node{b}, nil)
	p.waitStatus(timeout.ID, structs.EvalStatusComplete)
	waitFor(t, func() bool {
		return countWhere(p.allocsOn("web", a.ID), func(x *structs.Allocation) bool {
			return x.ClientStatus == structs.AllocClientStatusLost && x.ServerTerminalStatus()
		}) == 2
	})
	if n := len(p.evalsWithTrigger("web", structs.EvalTriggerMaxDisconnectTimeout)); n != 1 {
		t.Fatalf("%d max-disconnect-timeout evals, want 1", n)
	}
	p.advanceKeeping(time.Minute, []*structs.Node{b}, func() bool { return p.nodeStatus(a.ID) == structs.NodeStatusDown })
}

// A disconnected node that heartbeats again gets one reconnect eval per
// job with an alloc on it; the reconciler keeps one of each original and
// replacement per disconnect.reconcile.
func TestEvalTrigger_Reconnect_ReconcilerKeepsOnePerStrategy(t *testing.T) {
	for _, tc := range []struct {
		reconcile    string
		keepOriginal bool
	}{
		{structs.ReconcileOptionKeepOriginal, true},
		{structs.ReconcileOptionKeepReplacement, false},
	} {
		t.Run(tc.reconcile, func(t *testing.T) {
			p, a, b := disconnectSetup(t, tc.reconcile)
			p.heartbeat(a)
			if p.nodeStatus(a.ID) != structs.NodeStatusReady {
				t.Fatalf("reconnected node is %s", p.nodeStatus(a.ID))
			}
			var reconnects []*structs.Evaluation
			waitFor(t, func() bool {
				reconnects = p.evalsWithTrigger("web", structs.EvalTriggerReconnect)
				return len(reconnects) == 1 && reconnects[0].TerminalStatus()
			})
			kept, stopped := a.ID, b.ID
			if !tc.keepOriginal {
				kept, stopped = b.ID, a.ID
			}
			waitFor(t, func() bool {
				live := func(x *structs.Allocation) bool { return !x.ServerTerminalStatus() }
				return countWhere(p.allocsOn("web", kept), live) == 2 && countWhere(p.allocsOn("web", stopped), live) == 0
			})
		})
	}
}
