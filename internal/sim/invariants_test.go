package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func allocWith(id string, cpu int64, ports ...int) *structs.Allocation {
	var reserved []structs.Port
	for _, p := range ports {
		reserved = append(reserved, structs.Port{Label: "p", Value: p})
	}
	return &structs.Allocation{ID: id, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		AllocatedResources: &structs.AllocatedResources{
			Tasks:  map[string]*structs.AllocatedTaskResources{"t": {CpuShares: cpu, MemoryMB: 10}},
			Shared: structs.AllocatedSharedResources{Networks: []*structs.NetworkResource{{ReservedPorts: reserved}}},
		}}
}

func TestInvariants_CatchOvercommitAndPortClash(t *testing.T) {
	n := &structs.Node{Name: "n1", NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: 1000}, MemoryMB: 1000, DiskMB: 1000}}
	if err := checkNodeFit(n, []*structs.Allocation{allocWith("a", 600), allocWith("b", 300)}); err != nil {
		t.Fatalf("fitting allocs flagged: %v", err)
	}
	if err := checkNodeFit(n, []*structs.Allocation{allocWith("a", 600), allocWith("b", 600)}); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Fatalf("over-commit not caught: %v", err)
	}
	stopped := allocWith("c", 600, 8080)
	stopped.DesiredStatus = structs.AllocDesiredStatusStop
	if err := checkStaticPorts(n, []*structs.Allocation{allocWith("a", 1, 8080), stopped}); err != nil {
		t.Fatalf("a stopped alloc's port flagged: %v", err)
	}
	if err := checkStaticPorts(n, []*structs.Allocation{allocWith("a", 1, 8080), allocWith("b", 1, 8080)}); err == nil || !strings.Contains(err.Error(), "8080") {
		t.Fatalf("port clash not caught: %v", err)
	}
}

func TestInvariants_HoldAfterEveryStepOfAStory(t *testing.T) {
	s := newTestSim(t, 3)
	for _, n := range []string{"n1", "n2"} {
		_, err := s.AddNode(NodeSpec{Name: n, CPU: 2000})
		must(t, err)
	}
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 6, CPU: 500})) // 8 fit, 2 nodes x 4
	must(t, s.RegisterJob(JobSpec{Name: "big", Count: 4, CPU: 900})) // does not all fit: blocked
	must(t, s.MissHeartbeats("n2"))
	must(t, s.AdvanceTime(time.Minute))
	must(t, s.Resume("n2"))
	must(t, s.AdvanceTime(time.Minute))
	must(t, s.CheckInvariants())
}

// CheckInvariants itself, not only its helpers, reports a violation: a
// node re-registered smaller than the allocs already placed on it is
// over-committed until the scheduler moves them (not stepped here).
func TestInvariants_CheckReportsAnOvercommittedNode(t *testing.T) {
	s := newTestSim(t, 5)
	n, err := s.AddNode(NodeSpec{Name: "n1", CPU: 2000})
	must(t, err)
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 3, CPU: 500}))
	must(t, s.CheckInvariants())

	n.mu.Lock()
	n.spec.CPU = 1000
	n.mu.Unlock()
	must(t, n.register())
	if err := s.CheckInvariants(); err == nil || !strings.Contains(err.Error(), "over-committed") {
		t.Fatalf("CheckInvariants = %v, want the over-committed node", err)
	}
}

// Every eval the broker holds counts, whichever of its queues holds it
// (ready, waiting behind the job's eval in flight, unacked, cancelable):
// nothing is stepped, and at each stage the stored pending evals match
// the broker's total.
func TestInvariants_EvalsHeldCountEveryBrokerQueue(t *testing.T) {
	s := newTestSim(t, 6)
	_, err := s.AddNode(NodeSpec{Name: "n1", CPU: 4000})
	must(t, err)
	for i := range 3 {
		spec := JobSpec{Name: "web", Count: 1 + i, CPU: 100}
		if _, err := server.JobRegister.Call(context.Background(), s.srv, &structs.JobRegisterArgs{Job: spec.Job()}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, s.CheckInvariants()) // one ready, two waiting behind it

	ctx := context.Background()
	got, err := server.EvalDequeue.Call(ctx, s.srv, &structs.EvalDequeueRequest{Schedulers: []string{structs.JobTypeService}, Timeout: time.Second})
	if err != nil || got.Eval == nil {
		t.Fatalf("dequeue: %v %+v", err, got)
	}
	must(t, s.CheckInvariants()) // one unacked, two waiting

	done := got.Eval.Copy()
	done.Status = structs.EvalStatusComplete
	if _, err := server.EvalUpdate.Call(ctx, s.srv, &structs.EvalUpdateArgs{Evals: []*structs.Evaluation{done}}); err != nil {
		t.Fatal(err)
	}
	if _, err := server.EvalAck.Call(ctx, s.srv, &structs.EvalAckRequest{EvalID: done.ID, Token: got.Token}); err != nil {
		t.Fatal(err)
	}
	if b := s.srv.Stats().Broker; b.TotalReady != 1 || b.TotalCancelable != 1 {
		t.Fatalf("after the ack: broker %+v, want the newest eval ready and the older one cancelable", b)
	}
	must(t, s.CheckInvariants()) // one ready, one cancelable
}

// An eval acked while its stored status is still pending is lost: the
// broker no longer holds it and nothing will process it. CheckInvariants
// reports it while this server leads.
func TestInvariants_CheckReportsAnAckedButPendingEval(t *testing.T) {
	s := newTestSim(t, 7)
	_, err := s.AddNode(NodeSpec{Name: "n1", CPU: 4000})
	must(t, err)
	spec := JobSpec{Name: "web", Count: 1, CPU: 100}
	ctx := context.Background()
	if _, err := server.JobRegister.Call(ctx, s.srv, &structs.JobRegisterArgs{Job: spec.Job()}); err != nil {
		t.Fatal(err)
	}
	got, err := server.EvalDequeue.Call(ctx, s.srv, &structs.EvalDequeueRequest{Schedulers: []string{structs.JobTypeService}, Timeout: time.Second})
	if err != nil || got.Eval == nil {
		t.Fatalf("dequeue: %v %+v", err, got)
	}
	if _, err := server.EvalAck.Call(ctx, s.srv, &structs.EvalAckRequest{EvalID: got.Eval.ID, Token: got.Token}); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(); err == nil || !strings.Contains(err.Error(), "pending evals stored") {
		t.Fatalf("CheckInvariants = %v, want the lost pending eval", err)
	}
}

// Duplicate blocked evals (older ones of a job, waiting for the leader to
// cancel them) count as held by the blocked tracker.
func TestInvariants_BlockedDuplicatesAreHeld(t *testing.T) {
	s := newTestSim(t, 8)
	_, err := s.AddNode(NodeSpec{Name: "n1", CPU: 500})
	must(t, err)
	must(t, s.RegisterJob(JobSpec{Name: "big", Count: 1, CPU: 900})) // blocked
	spec := JobSpec{Name: "big", Count: 1, CPU: 950}
	if _, err := server.JobRegister.Call(context.Background(), s.srv, &structs.JobRegisterArgs{Job: spec.Job()}); err != nil {
		t.Fatal(err)
	}
	stepWorkers(s) // the new eval blocks; the old one is now a duplicate
	if b := s.srv.Stats().Blocked; b.TotalBlocked != 1 || b.TotalDuplicates != 1 {
		t.Fatalf("blocked tracker %+v: want one blocked eval and one duplicate", b)
	}
	must(t, s.CheckInvariants())
}

// stepWorkers runs only the workers' steps until they are idle, leaving
// the leader's reapers unstepped.
func stepWorkers(s *Sim) {
	for progress := true; progress; {
		progress = false
		for _, d := range s.srv.DutySteps() {
			if strings.HasPrefix(d.Name, "worker-") && d.Step() {
				progress = true
			}
		}
	}
}
