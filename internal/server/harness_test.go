package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// script is what a scripted test scheduler does with one eval.
type script func(eval *structs.Evaluation, st scheduler.State, p scheduler.Planner) error

// scripted is a scheduler whose behaviour each test chooses.
type scripted struct {
	fn    script
	st    scheduler.State
	p     scheduler.Planner
	calls *atomic.Int64
}

func (s *scripted) Process(e *structs.Evaluation) error {
	s.calls.Add(1)
	return s.fn(e, s.st, s.p)
}

// pipeline is a dev server whose "service" scheduler runs a script, with
// a manual clock for the broker's timers and the leader's reapers.
type pipeline struct {
	t     *testing.T
	srv   *Server
	clk   *clock.Manual
	calls *atomic.Int64
	mu    sync.Mutex
	fn    script
	ids   atomic.Int64
}

func newPipeline(t *testing.T, workers int, fn script, opts ...func(*Config)) *pipeline {
	t.Helper()
	p := &pipeline{t: t, clk: clock.NewManual(time.Unix(1_700_000_000, 0)), calls: &atomic.Int64{}, fn: fn}
	factory := func(log *slog.Logger, st scheduler.State, planner scheduler.Planner) scheduler.Scheduler {
		p.mu.Lock()
		defer p.mu.Unlock()
		return &scripted{fn: p.fn, st: st, p: planner, calls: p.calls}
	}
	cfg := &Config{
		NodeName: "pipeline", DevMode: true, RaftAddr: fmt.Sprintf("pipeline-%p", p),
		NumSchedulers: workers, LeaderPausedWorkersPercent: 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Clock:  p.clk, Rand: rand.New(rand.NewPCG(1, 2)),
		NewID:  func() string { return fmt.Sprintf("id-%03d", p.ids.Add(1)) },
		Broker: broker.Config{NackTimeout: time.Minute, InitialNackDelay: time.Second, SubsequentNackDelay: 20 * time.Second, DeliveryLimit: 3},
		Schedulers: map[string]scheduler.Factory{
			structs.JobTypeService: factory, structs.JobTypeBatch: factory,
			structs.JobTypeSystem: factory, structs.JobTypeSysBatch: factory,
		},
		FailedFollowUpBaseDelay: time.Minute, FailedFollowUpJitter: time.Second,
	}
	for _, opt := range opts {
		opt(cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	if err := s.WaitForLeader(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.LeaderActive() })
	p.srv = s
	return p
}

// setScript replaces what the scheduler does for later evals.
func (p *pipeline) setScript(fn script) {
	p.mu.Lock()
	p.fn = fn
	p.mu.Unlock()
}

// register registers a job and returns its job-register eval ID.
func (p *pipeline) register(job *structs.Job) string {
	p.t.Helper()
	reply, err := JobRegister.Call(context.Background(), p.srv, &structs.JobRegisterArgs{Job: job})
	if err != nil {
		p.t.Fatalf("register %s: %v", job.ID, err)
	}
	return reply.EvalID
}

// eval reads an eval from state.
func (p *pipeline) eval(id string) *structs.Evaluation {
	p.t.Helper()
	e, err := p.srv.State().EvalByID(nil, id)
	if err != nil {
		p.t.Fatal(err)
	}
	return e
}

// waitStatus waits until an eval reaches a status.
func (p *pipeline) waitStatus(id, status string) *structs.Evaluation {
	p.t.Helper()
	var last *structs.Evaluation
	testutil.WaitFor(p.t, 10*time.Second, "eval "+id+" to be "+status, func() (bool, string) {
		last = p.eval(id)
		return last != nil && last.Status == status, "status " + statusOf(last)
	})
	return last
}

func statusOf(e *structs.Evaluation) string {
	if e == nil {
		return "<missing>"
	}
	return e.Status + " (" + e.StatusDescription + ")"
}

// evalsOf lists a job's evals.
func (p *pipeline) evalsOf(jobID string) []*structs.Evaluation {
	evals, err := p.srv.State().EvalsByJob(nil, "default", jobID)
	if err != nil {
		p.t.Fatal(err)
	}
	return evals
}

// evalByTrigger returns the job's only eval with a trigger, waiting for it.
func (p *pipeline) evalByTrigger(jobID, trigger string) *structs.Evaluation {
	p.t.Helper()
	var found []*structs.Evaluation
	waitFor(p.t, func() bool {
		found = nil
		for _, e := range p.evalsOf(jobID) {
			if e.TriggeredBy == trigger {
				found = append(found, e)
			}
		}
		return len(found) > 0
	})
	if len(found) != 1 {
		p.t.Fatalf("job %s has %d %s evals, want 1", jobID, len(found), trigger)
	}
	return found[0]
}

// addNode registers a ready node through raft.
func (p *pipeline) addNode(id string, cpu, mem int64) *structs.Node {
	p.t.Helper()
	n := pipelineNode(id, cpu, mem)
	if _, err := p.srv.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: n}); err != nil {
		p.t.Fatal(err)
	}
	return n
}

// pipelineNode is mock.Node with cpu MHz and mem MB, in class "class-a",
// without a secret (the tests heartbeat without one).
func pipelineNode(id string, cpu, mem int64) *structs.Node {
	n := mock.Node(id)
	n.Name, n.SecretID, n.ComputedClass = id, "", "class-a"
	n.NodeResources.CPU = structs.NodeCPUResources{CpuShares: cpu}
	n.NodeResources.MemoryMB = mem
	return n
}

// placeOn builds a plan placing one alloc of job on node.
func placeOn(eval *structs.Evaluation, st scheduler.State, nodeID string, cpu, mem int64) *structs.Plan {
	job, _ := st.JobByID(nil, eval.Namespace, eval.JobID)
	plan := &structs.Plan{Priority: eval.Priority, Job: job}
	plan.AppendAlloc(&structs.Allocation{
		ID: fmt.Sprintf("alloc-%s-%s", eval.ID, nodeID), Namespace: eval.Namespace, EvalID: eval.ID,
		Name: structs.AllocName(eval.JobID, "g", 0), NodeID: nodeID, JobID: eval.JobID, Job: job, TaskGroup: "g",
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"t": {CpuShares: cpu, MemoryMB: mem},
		}},
	})
	return plan
}

// complete marks the eval complete through the planner.
func complete(eval *structs.Evaluation, p scheduler.Planner) error {
	done := eval.Copy()
	done.Status = structs.EvalStatusComplete
	return p.UpdateEval(done)
}
