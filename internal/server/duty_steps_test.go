package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
)

// newSteppedPipeline is a pipeline whose duties and worker run only when
// the test steps them (Config.ManualDuties).
func newSteppedPipeline(t *testing.T, opts ...func(*Config)) *pipeline {
	t.Helper()
	opts = append([]func(*Config){func(c *Config) { c.ManualDuties = true }}, opts...)
	p := newPipeline(t, 1, completeAll, opts...)
	if err := p.srv.AwaitLeadership(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return p
}

// runSteps steps the duties until a pass makes no progress.
func runSteps(t *testing.T, s *Server) {
	t.Helper()
	for i := 0; s.StepDuties(); i++ {
		if i > 1000 {
			t.Fatal("duties never stop progressing")
		}
	}
}

// With manual duties nothing processes an eval until the caller steps the
// server; one run of steps takes it to complete, after which a pass finds
// nothing to do and writes nothing to raft.
func TestStepDuties_NothingRunsUntilStepped(t *testing.T) {
	var raftWrites atomic.Int64
	p := newSteppedPipeline(t, func(c *Config) {
		c.RaftApplyHook = func(structs.MessageType) { raftWrites.Add(1) }
	})
	id := p.register(testJob("web"))
	if got := p.eval(id).Status; got != structs.EvalStatusPending {
		t.Fatalf("unstepped eval is %s, want pending", got)
	}
	if p.calls.Load() != 0 {
		t.Fatalf("scheduler ran %d times before any step", p.calls.Load())
	}
	runSteps(t, p.srv)
	if got := p.eval(id).Status; got != structs.EvalStatusComplete {
		t.Fatalf("stepped eval is %s, want complete", got)
	}
	writes := raftWrites.Load()
	if p.srv.StepDuties() {
		t.Fatal("an idle pass reported progress")
	}
	if n := raftWrites.Load() - writes; n != 0 {
		t.Fatalf("an idle pass made %d raft writes", n)
	}
}

// The GC duty is a tick on the clock: no core evals before GCInterval,
// one eval-gc and one job-gc once it has passed, and the next only after
// another interval.
func TestStepDuties_GCIsATickOnTheClock(t *testing.T) {
	p := newSteppedPipeline(t)
	interval := p.srv.config.GCInterval
	p.clk.Advance(interval - time.Second)
	runSteps(t, p.srv)
	if n := len(p.evalsOf(leader.CoreJobEvalGC)); n != 0 {
		t.Fatalf("%d eval-gc evals before the interval", n)
	}
	p.clk.Advance(time.Second)
	runSteps(t, p.srv)
	if n, m := len(p.evalsOf(leader.CoreJobEvalGC)), len(p.evalsOf(leader.CoreJobJobGC)); n != 1 || m != 1 {
		t.Fatalf("after one interval: %d eval-gc, %d job-gc evals, want 1 and 1", n, m)
	}
	p.clk.Advance(interval - time.Second)
	runSteps(t, p.srv)
	if n := len(p.evalsOf(leader.CoreJobEvalGC)); n != 1 {
		t.Fatalf("%d eval-gc evals before the second interval, want 1", n)
	}
	p.clk.Advance(time.Second)
	runSteps(t, p.srv)
	if n := len(p.evalsOf(leader.CoreJobEvalGC)); n != 2 {
		t.Fatalf("%d eval-gc evals after two intervals, want 2", n)
	}
}

// A heartbeat timer that fires only queues its node: the step marks it
// down, unless the node heartbeated after the timer fired and before the
// step (its timer was re-armed), in which case it stays ready.
func TestStepDuties_HeartbeatExpiry(t *testing.T) {
	p := newSteppedPipeline(t)
	n := clientNode(nodeA)
	reply, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	late := reply.HeartbeatTTL + p.srv.config.HeartbeatGrace + time.Millisecond
	p.clk.Advance(late)
	if got := p.nodeStatus(n.ID); got != structs.NodeStatusReady {
		t.Fatalf("node is %s before the expiry step", got)
	}
	if _, err := NodeUpdateStatus.Call(context.Background(), p.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID}); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	if got := p.nodeStatus(n.ID); got != structs.NodeStatusReady {
		t.Fatalf("node that heartbeated after its timer fired is %s", got)
	}
	p.clk.Advance(time.Hour)
	runSteps(t, p.srv)
	if got := p.nodeStatus(n.ID); got != structs.NodeStatusDown {
		t.Fatalf("silent node is %s, want down", got)
	}
}
