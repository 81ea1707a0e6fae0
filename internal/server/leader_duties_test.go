package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// GC deletes only terminal evals: a pending (delayed) eval and a blocked
// eval, however old, survive every pass (they are live work).
func TestGC_NeverDeletesPendingOrBlockedEvals(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	now := p.clk.Now()
	delayed := &structs.Evaluation{ID: "delayed-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerRetryFailedAlloc, JobID: "web", Status: structs.EvalStatusPending,
		WaitUntil: now.Add(24 * time.Hour), CreateTime: now.UnixNano(), ModifyTime: now.UnixNano()}
	blocked := &structs.Evaluation{ID: "blocked-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerQueuedAllocs, JobID: "web", Status: structs.EvalStatusBlocked,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano()}
	if err := p.srv.UpsertEvals([]*structs.Evaluation{delayed, blocked}); err != nil {
		t.Fatal(err)
	}
	p.clk.Advance(3 * time.Hour)
	if err := p.srv.leader.CreateCoreEvals(leader.CoreJobForceGC); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		for _, e := range p.evalsOf(leader.CoreJobForceGC) {
			if e.Status == structs.EvalStatusComplete {
				return true
			}
		}
		return false
	})
	for _, id := range []string{"delayed-1", "blocked-1"} {
		if p.eval(id) == nil {
			t.Fatalf("GC deleted live eval %s", id)
		}
	}
	if e := p.eval("blocked-1"); e.Status != structs.EvalStatusBlocked {
		t.Fatalf("blocked eval is now %s", e.Status)
	}
}

// The leader creates the `scheduled` GC evals by itself every GCInterval:
// one eval-gc and one job-gc per interval, none before it, each processed
// to complete. The duties are stepped on the manual clock, so each pass
// happens exactly when the interval has passed.
func TestLeader_CreatesPeriodicGCEvals(t *testing.T) {
	p := newSteppedPipeline(t)
	interval := p.srv.config.GCInterval
	for i := 1; i <= 2; i++ {
		p.clk.Advance(interval - time.Second)
		runSteps(t, p.srv)
		if n, m := len(p.evalsOf(leader.CoreJobEvalGC)), len(p.evalsOf(leader.CoreJobJobGC)); n != i-1 || m != i-1 {
			t.Fatalf("a second before interval %d: %d eval-gc, %d job-gc evals, want %d of each", i, n, m, i-1)
		}
		p.clk.Advance(time.Second)
		runSteps(t, p.srv)
		if n := countCoreEvals(p, structs.EvalStatusComplete); n != i {
			t.Fatalf("after interval %d: %d complete scheduled eval-gc evals, want %d", i, n, i)
		}
		jobGC := 0
		for _, e := range p.evalsOf(leader.CoreJobJobGC) {
			if e.Status == structs.EvalStatusComplete && e.TriggeredBy == structs.EvalTriggerScheduled {
				jobGC++
			}
		}
		if jobGC != i || len(p.evalsOf(leader.CoreJobJobGC)) != i {
			t.Fatalf("after interval %d: %d complete scheduled job-gc evals of %d, want %d", i, jobGC, len(p.evalsOf(leader.CoreJobJobGC)), i)
		}
	}
}

// Evals blocked by max-plan-attempts are retried by the leader every
// UnblockFailedInterval without any capacity change; queued-allocs
// blocked evals are not (they wait for capacity).
func TestLeader_RetriesMaxPlanAttemptsBlockedEvals(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	p.waitStatus(p.register(testJob("api")), structs.EvalStatusComplete)
	now := p.clk.Now().UnixNano()
	planFailed := &structs.Evaluation{ID: "plan-failed-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerMaxPlans, JobID: "web", Status: structs.EvalStatusBlocked, CreateTime: now, ModifyTime: now}
	queued := &structs.Evaluation{ID: "queued-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerQueuedAllocs, JobID: "api", Status: structs.EvalStatusBlocked, CreateTime: now, ModifyTime: now}
	if err := p.srv.UpsertEvals([]*structs.Evaluation{planFailed, queued}); err != nil {
		t.Fatal(err)
	}
	p.clk.Advance(p.srv.config.UnblockFailedInterval)
	p.waitStatus("plan-failed-1", structs.EvalStatusComplete)
	if e := p.eval("queued-1"); e.Status != structs.EvalStatusBlocked {
		t.Fatalf("queued-allocs blocked eval was retried without capacity: %s", e.Status)
	}
}

// Node events skip a job's node-update eval only while another eval of
// the job waits undequeued in the broker; otherwise (nothing waiting, or
// the waiting eval dequeued before the event committed) the eval is
// written. A node going down with allocs of two jobs, one of which has an
// eval waiting, writes exactly the other job's eval, and the waiting one
// then schedules against the down node.
func TestNodeEvalCoalescing_WritesEveryEvalItMust(t *testing.T) {
	hold := make(chan struct{})
	p := newPipeline(t, 1, completeAll)
	n := clientNode(nodeA)
	if _, err := NodeRegister.Call(context.Background(), p.srv, &structs.NodeRegisterArgs{Node: n}); err != nil {
		t.Fatal(err)
	}
	p.waitStatus(p.register(testJob("web")), structs.EvalStatusComplete)
	p.waitStatus(p.register(testJob("api")), structs.EvalStatusComplete)
	p.allocOnNode("web", n.ID)
	p.allocOnNode("api", n.ID)

	// Nothing waits: both jobs get their node-update eval.
	reply, err := (&NodeEndpoint{srv: p.srv}).setStatus(n.ID, structs.NodeStatusDown)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.EvalIDs) != 2 {
		t.Fatalf("%d node-update evals with nothing waiting, want 2", len(reply.EvalIDs))
	}
	for _, id := range reply.EvalIDs {
		p.waitStatus(id, structs.EvalStatusComplete)
	}

	// The worker holds one eval of "web"; a second one waits behind it.
	p.setScript(func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.JobID == "web" && e.TriggeredBy == structs.EvalTriggerJobRegister {
			<-hold
		}
		return complete(e, pl)
	})
	busy := p.register(testJob("web"))
	waitFor(t, func() bool { return p.srv.broker.Stats().TotalUnacked == 1 })
	waiting := p.register(testJob("web"))
	waitFor(t, func() bool { return p.srv.broker.Waiting("default", "web") })

	reply, err = (&NodeEndpoint{srv: p.srv}).setStatus(n.ID, structs.NodeStatusReady)
	if err != nil {
		t.Fatal(err)
	}
	close(hold)
	if len(reply.EvalIDs) != 1 || p.eval(reply.EvalIDs[0]).JobID != "api" {
		t.Fatalf("node event wrote %v, want only api's eval", reply.EvalIDs)
	}
	p.waitStatus(busy, structs.EvalStatusComplete)
	p.waitStatus(waiting, structs.EvalStatusComplete)

	// A covered eval whose job's waiting eval was dequeued before the event
	// committed is written after the commit.
	late := &structs.Evaluation{ID: "late-1", Namespace: "default", Priority: 50, Type: "service",
		TriggeredBy: structs.EvalTriggerNodeUpdate, JobID: "web", NodeID: n.ID, Status: structs.EvalStatusPending}
	written, err := p.srv.leader.WriteUncovered([]*structs.Evaluation{late})
	if err != nil || len(written) != 1 {
		t.Fatalf("writeUncovered wrote %d evals (%v), want 1", len(written), err)
	}
	p.waitStatus("late-1", structs.EvalStatusComplete)
}

// stoppedAndAged registers a job and stops it, both processed by the
// steps, then moves the clock past the stop by coreJob's GC threshold plus
// beyond and runs one core GC eval of that kind. It returns the pipeline
// and the register eval's ID.
func stoppedAndAged(t *testing.T, job *structs.Job, coreJob string, beyond time.Duration, opts ...func(*Config)) (*pipeline, string) {
	t.Helper()
	p := newSteppedPipeline(t, opts...)
	registerEval := p.register(job)
	runSteps(t, p.srv)
	if _, err := JobDeregister.Call(context.Background(), p.srv, &structs.JobDeregisterArgs{JobID: job.ID}); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	threshold := p.srv.config.EvalGCThreshold
	if coreJob == leader.CoreJobJobGC {
		threshold = p.srv.config.JobGCThreshold
	}
	p.clk.Advance(threshold + beyond)
	if err := p.srv.leader.CreateCoreEvals(coreJob); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	return p, registerEval
}

// job-gc purges a stopped job once it has been stopped for
// JobGCThreshold, not before.
func TestGC_JobGCPurgesStoppedJobsOnlyPastThreshold(t *testing.T) {
	cases := []struct {
		name       string
		stoppedFor time.Duration // beyond JobGCThreshold (negative: short of it)
		purged     bool
	}{
		{"short of the threshold", -time.Second, false},
		{"at the threshold", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			job := mock.Job("web")
			p, _ := stoppedAndAged(t, job, leader.CoreJobJobGC, c.stoppedFor)
			stored, err := p.srv.State().JobByID(nil, job.Namespace, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if purged := stored == nil; purged != c.purged {
				t.Fatalf("job purged = %v, want %v", purged, c.purged)
			}
		})
	}
}

// A batch job's evals wait BatchEvalGCThreshold (server
// batch_eval_gc_threshold), not EvalGCThreshold; a service job's do not.
func TestGC_BatchEvalsWaitTheirOwnThreshold(t *testing.T) {
	batchLonger := func(c *Config) { c.EvalGCThreshold, c.BatchEvalGCThreshold = time.Hour, 24*time.Hour }
	for _, c := range []struct {
		jobType string
		aged    time.Duration // past EvalGCThreshold
		deleted bool
	}{
		{structs.JobTypeService, time.Second, true},
		{structs.JobTypeBatch, time.Second, false},
		{structs.JobTypeBatch, 23 * time.Hour, true},
	} {
		t.Run(fmt.Sprintf("%s aged %s", c.jobType, c.aged), func(t *testing.T) {
			job := mock.Job("j")
			job.Type = c.jobType
			p, registerEval := stoppedAndAged(t, job, leader.CoreJobEvalGC, c.aged, batchLonger)
			if deleted := p.eval(registerEval) == nil; deleted != c.deleted {
				t.Fatalf("register eval deleted = %v, want %v", deleted, c.deleted)
			}
		})
	}
}

// The job GC deregisters a node down for NodeGCThreshold (server
// node_gc_threshold) with nothing on it, not one down for less.
func TestGC_NodeGCDeregistersNodesDownPastThreshold(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) { c.NodeGCThreshold = 24 * time.Hour })
	down := func(id string) {
		p.addNode(id, 1000, 1000)
		req := &structs.NodeUpdateStatusRequest{NodeID: id, Status: structs.NodeStatusDown, UpdatedAt: p.clk.Now().Unix()}
		if _, err := p.srv.raftApply(context.Background(), structs.NodeUpdateStatusRequestType, req); err != nil {
			t.Fatal(err)
		}
	}
	down("old")
	p.clk.Advance(23 * time.Hour)
	down("recent")
	p.addNode("up", 1000, 1000)
	p.clk.Advance(time.Hour)
	if err := p.srv.leader.CreateCoreEvals(leader.CoreJobJobGC); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	for id, want := range map[string]bool{"old": false, "recent": true, "up": true} {
		if n, _ := p.srv.State().NodeByID(nil, id); (n != nil) != want {
			t.Errorf("node %s registered = %v, want %v", id, n != nil, want)
		}
	}
}

// eval-gc deletes a terminal eval once it has been terminal for
// EvalGCThreshold, not before.
func TestGC_EvalGCDeletesTerminalEvalsOnlyPastThreshold(t *testing.T) {
	cases := []struct {
		name    string
		doneFor time.Duration // beyond EvalGCThreshold (negative: short of it)
		deleted bool
	}{
		{"short of the threshold", -time.Nanosecond, false},
		{"at the threshold", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, registerEval := stoppedAndAged(t, mock.Job("web"), leader.CoreJobEvalGC, c.doneFor)
			if deleted := p.eval(registerEval) == nil; deleted != c.deleted {
				t.Fatalf("register eval deleted = %v, want %v", deleted, c.deleted)
			}
		})
	}
}
