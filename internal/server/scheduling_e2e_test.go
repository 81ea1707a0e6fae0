package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// realServer is a dev server with the built-in schedulers.
func realServer(t *testing.T, opts ...func(*Config)) *Server {
	t.Helper()
	c := &Config{NodeName: "e2e", DevMode: true, RaftAddr: fmt.Sprintf("e2e-%d", time.Now().UnixNano()),
		NumSchedulers: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, o := range opts {
		o(c)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	if err := s.WaitForLeader(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.LeaderActive() })
	return s
}

func e2eNode(i int, cpu, mem int64) *structs.Node {
	n := pipelineNode(fmt.Sprintf("00000000-0000-4000-8000-%012d", i), cpu, mem)
	n.ComputedClass = ""
	n.Attributes = map[string]string{"driver.exec": "1", "kernel.name": "linux"}
	n.Drivers = map[string]*structs.DriverInfo{"exec": {Detected: true, Healthy: true}}
	return n
}

func e2eJob(id string, count int, cpu, mem int) *structs.Job {
	j := testJob(id)
	j.TaskGroups[0].Count = count
	j.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: cpu, MemoryMB: mem}
	return j
}

func waitEval(t *testing.T, s *Server, id string, status string) *structs.Evaluation {
	t.Helper()
	var e *structs.Evaluation
	testutil.WaitFor(t, 15*time.Second, "eval "+id+" to be "+status, func() (bool, string) {
		e, _ = s.State().EvalByID(nil, id)
		return e != nil && e.Status == status, "status " + statusOf(e)
	})
	return e
}

func liveAllocs(t *testing.T, s *Server, job string) []*structs.Allocation {
	allocs, err := s.State().AllocsByJob(nil, "default", job, false)
	if err != nil {
		t.Fatal(err)
	}
	var live []*structs.Allocation
	for _, a := range allocs {
		if !a.TerminalStatus() {
			live = append(live, a)
		}
	}
	return live
}

// TestScheduling_EndToEnd_PlacesOnFeasibleNodes registers simulated nodes
// and a service job of count 5 that lands on them, within capacity.
func TestScheduling_EndToEnd_PlacesOnFeasibleNodes(t *testing.T) {
	s := realServer(t)
	for i := 1; i <= 3; i++ {
		if _, err := s.RegisterNode(e2eNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob("web", 5, 1000, 1024)})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
	allocs := liveAllocs(t, s, "web")
	if len(allocs) != 5 {
		t.Fatalf("%d allocs, want 5", len(allocs))
	}
	perNode := map[string]int{}
	for _, a := range allocs {
		perNode[a.NodeID]++
	}
	for node, n := range perNode {
		if n > 4 {
			t.Errorf("node %s has %d allocs of 1000 MHz on 4000 MHz", node, n)
		}
	}
}

// TestScheduling_EndToEnd_BlockedUntilNodeAdded: a job that fits nowhere
// leaves a queued-allocs blocked eval, unblocked and placed when a big
// enough node registers.
func TestScheduling_EndToEnd_BlockedUntilNodeAdded(t *testing.T) {
	s := realServer(t)
	if _, err := s.RegisterNode(e2eNode(1, 1000, 1024)); err != nil {
		t.Fatal(err)
	}
	reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob("big", 1, 3000, 2048)})
	if err != nil {
		t.Fatal(err)
	}
	done := waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
	if done.BlockedEval == "" || len(done.FailedTGAllocs) == 0 {
		t.Fatalf("eval %+v: want a blocked eval and failed TG allocs", done)
	}
	blocked := waitEval(t, s, done.BlockedEval, structs.EvalStatusBlocked)
	if blocked.PreviousEval != done.ID || blocked.TriggeredBy != structs.EvalTriggerQueuedAllocs {
		t.Fatalf("blocked eval %+v", blocked)
	}
	if n := len(liveAllocs(t, s, "big")); n != 0 {
		t.Fatalf("%d allocs placed on a node too small", n)
	}
	if _, err := s.RegisterNode(e2eNode(2, 8000, 8192)); err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, blocked.ID, structs.EvalStatusComplete)
	allocs := liveAllocs(t, s, "big")
	if len(allocs) != 1 || allocs[0].NodeID != e2eNode(2, 0, 0).ID {
		t.Fatalf("allocs after unblock: %+v", allocs)
	}
}

// TestEvalStatus_ApplyingToPending_Preemption_EndToEnd: a high-priority
// system job that does not fit on a full node preempts a lower-priority
// service alloc there; the plan applier writes one preemption eval for the
// service job, with no PreviousEval (the chain breaks: docs/design.md, T13).
func TestEvalStatus_ApplyingToPending_Preemption_EndToEnd(t *testing.T) {
	s := realServer(t)
	if _, err := s.RegisterNode(e2eNode(1, 1000, 2048)); err != nil {
		t.Fatal(err)
	}
	svc := e2eJob("low", 1, 800, 512)
	svc.Priority = 30
	reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: svc})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
	victim := liveAllocs(t, s, "low")[0]

	sys := e2eJob("agent", 1, 500, 256)
	sys.Type, sys.Priority = structs.JobTypeSystem, 90
	reply, err = JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: sys})
	if err != nil {
		t.Fatal(err)
	}
	preemptor := waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
	if preemptor.BlockedEval != "" || preemptor.NextEval != "" {
		t.Fatalf("the preempting eval points at %q/%q: preemption evals break the chain", preemptor.BlockedEval, preemptor.NextEval)
	}
	placed := liveAllocs(t, s, "agent")
	if len(placed) != 1 || len(placed[0].PreemptedAllocations) != 1 || placed[0].PreemptedAllocations[0] != victim.ID {
		t.Fatalf("system alloc %+v", placed)
	}
	evicted, _ := s.State().AllocByID(nil, victim.ID)
	if evicted.DesiredStatus != structs.AllocDesiredStatusEvict || evicted.PreemptedByAllocation != placed[0].ID {
		t.Fatalf("victim %+v", evicted)
	}
	var pre []*structs.Evaluation
	waitFor(t, func() bool {
		pre = nil
		evals, _ := s.State().EvalsByJob(nil, "default", "low")
		for _, e := range evals {
			if e.TriggeredBy == structs.EvalTriggerPreemption {
				pre = append(pre, e)
			}
		}
		return len(pre) == 1
	})
	if pre[0].PreviousEval != "" {
		t.Fatalf("preemption eval has PreviousEval %q", pre[0].PreviousEval)
	}
}
