package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// stepLeadership steps the leader down or up and waits until handled.
func (p *pipeline) stepLeadership(leader bool) { p.srv.StepLeadership(leader) }

// firstFit places one alloc of 500 MHz on the first node with room in the
// scheduler's snapshot, retrying on rejection; with no room it blocks.
func firstFit(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
	for attempt := 0; attempt < scheduler.MaxServiceScheduleAttempts; attempt++ {
		node := nodeWithRoom(st, 500)
		if node == "" {
			return blockAndComplete(e, pl, "blocked-"+e.ID)
		}
		result, newState, err := pl.SubmitPlan(placeOn(e, st, node, 500, 128))
		if err != nil {
			return err
		}
		if result.RefreshIndex == 0 {
			return complete(e, pl)
		}
		st = newState
	}
	failed := e.Copy()
	failed.Status = structs.EvalStatusFailed
	return pl.UpdateEval(failed)
}

func nodeWithRoom(st scheduler.State, cpu int64) string {
	nodes, _ := st.Nodes(nil)
	for _, n := range nodes {
		allocs, _ := st.AllocsByNode(nil, n.ID)
		used := int64(0)
		for _, a := range allocs {
			if !a.TerminalStatus() {
				used += a.AllocatedResources.Comparable().CpuShares
			}
		}
		if n.NodeResources.CPU.CpuShares-used >= cpu {
			return n.ID
		}
	}
	return ""
}

// TestPipeline_ManyWorkersManyJobs_NoEvalLostNoNodeOvercommitted runs 4
// workers over 60 jobs racing for 10 nodes that fit 4 allocs each, so
// plans collide and are rejected; every eval must end terminal (or
// blocked), every placed job has one alloc, no node is over-committed.
func TestPipeline_ManyWorkersManyJobs_NoEvalLostNoNodeOvercommitted(t *testing.T) {
	p := newPipeline(t, 4, firstFit)
	for i := 0; i < 10; i++ {
		p.addNode(fmt.Sprintf("node-%02d", i), 2000, 8192)
	}
	var wg sync.WaitGroup
	for i := 0; i < 60; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.register(testJob(fmt.Sprintf("job-%02d", i)))
		}()
	}
	wg.Wait()
	waitFor(t, func() bool {
		st := p.srv.Stats()
		return st.Broker.TotalReady == 0 && st.Broker.TotalUnacked == 0 && st.PlanQueue == 0
	})
	evals, _ := p.srv.State().Evals(nil, "*")
	for _, e := range evals {
		if e.Status == structs.EvalStatusPending {
			t.Errorf("eval %s (%s) still pending with an idle broker: lost", e.ID, e.JobID)
		}
	}
	allocs, _ := p.srv.State().Allocs(nil, "*")
	if len(allocs) != 40 {
		t.Errorf("%d allocs placed, want 40 (10 nodes x 4)", len(allocs))
	}
	perJob, perNode := map[string]int{}, map[string]int64{}
	for _, a := range allocs {
		perJob[a.JobID]++
		perNode[a.NodeID] += a.AllocatedResources.Comparable().CpuShares
	}
	for job, n := range perJob {
		if n != 1 {
			t.Errorf("job %s has %d allocs", job, n)
		}
	}
	for node, cpu := range perNode {
		if cpu > 2000 {
			t.Errorf("node %s over-committed: %d MHz of 2000", node, cpu)
		}
	}
	if blocked := p.srv.Stats().Blocked.TotalBlocked; blocked != 20 {
		t.Errorf("%d blocked evals, want 20 (jobs that did not fit)", blocked)
	}
}

// TestPipeline_TwoWorkersSameFullNode_OnePlacementOneRefresh holds two
// workers until both have planned onto a node with room for one alloc.
func TestPipeline_TwoWorkersSameFullNode_OnePlacementOneRefresh(t *testing.T) {
	var mu sync.Mutex
	var results []*structs.PlanResult
	planned := make(chan struct{}, 2)
	release := make(chan struct{})
	p := newPipeline(t, 2, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		plan := placeOn(e, st, "only", 1500, 128)
		planned <- struct{}{}
		<-release
		result, _, err := pl.SubmitPlan(plan)
		if err != nil {
			return err
		}
		mu.Lock()
		results = append(results, result)
		mu.Unlock()
		return complete(e, pl)
	})
	p.addNode("only", 2000, 8192)
	p.register(testJob("a"))
	p.register(testJob("b"))
	<-planned
	<-planned
	close(release)
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(results) == 2 })
	committed, rejected := 0, 0
	for _, r := range results {
		if r.RefreshIndex == 0 && len(r.NodeAllocation["only"]) == 1 {
			committed++
		}
		if r.RefreshIndex != 0 && len(r.RejectedNodes) == 1 {
			rejected++
		}
	}
	if committed != 1 || rejected != 1 {
		t.Fatalf("committed %d rejected %d, want 1 and 1", committed, rejected)
	}
	if allocs, _ := p.srv.State().AllocsByNode(nil, "only"); len(allocs) != 1 {
		t.Fatalf("%d allocs on the node", len(allocs))
	}
}

// TestPipeline_LeaderStepDownAndUp_RebuildsBrokerAndBlockedFromState
// steps the leader down with evals pending and blocked, then up again:
// the new term rebuilds the broker and tracker from state, losing nothing.
func TestPipeline_LeaderStepDownAndUp_RebuildsBrokerAndBlockedFromState(t *testing.T) {
	hold := make(chan struct{})
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.JobID == "hold" {
			<-hold
			return complete(e, pl)
		}
		return firstFit(e, st, pl)
	})
	for i := 0; i < 3; i++ { // no nodes: these block
		p.waitStatus(p.register(testJob(fmt.Sprintf("blocked-%d", i))), structs.EvalStatusComplete)
	}
	holdEval := p.register(testJob("hold"))
	waitFor(t, func() bool { return p.srv.Stats().Broker.TotalUnacked == 1 })
	var pending []string
	for i := 0; i < 4; i++ {
		pending = append(pending, p.register(testJob(fmt.Sprintf("pending-%d", i))))
	}
	before := p.srv.Stats()
	if before.Blocked.TotalBlocked != 3 || before.Broker.TotalReady != 4 {
		t.Fatalf("before step-down: %d blocked, %d ready", before.Blocked.TotalBlocked, before.Broker.TotalReady)
	}

	close(hold) // the held worker finishes; its writes fail or land, either way nothing is lost
	p.stepLeadership(false)
	if st := p.srv.Stats(); st.Broker.TotalReady+st.Broker.TotalUnacked+st.Blocked.TotalBlocked != 0 {
		t.Fatalf("follower still holds evals: %+v", st)
	}
	p.stepLeadership(true)
	p.addNode("n1", 100_000, 100_000) // room for everyone: blocked evals unblock
	for _, id := range append(pending, holdEval) {
		p.waitStatus(id, structs.EvalStatusComplete)
	}
	for i := 0; i < 3; i++ {
		job := fmt.Sprintf("blocked-%d", i)
		waitFor(t, func() bool {
			allocs, _ := p.srv.State().AllocsByJob(nil, "default", job, true)
			return len(allocs) == 1
		})
	}
}

// TestWorker_PlanWaitingOnApplierIsNotNacked: a plan held in the leader's
// applier past the nack timeout does not get its eval redelivered to
// another worker: the nack timer is paused while the plan waits.
func TestWorker_PlanWaitingOnApplierIsNotNacked(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if _, _, err := pl.SubmitPlan(placeOn(e, st, "n1", 100, 64)); err != nil {
			return err
		}
		return complete(e, pl)
	}, func(c *Config) {
		c.PlanRejectHook = func(*structs.Plan) []string {
			once.Do(func() { close(entered) })
			<-release // a slow applier
			return nil
		}
	})
	p.addNode("n1", 4000, 8192)
	id := p.register(testJob("web"))
	<-entered
	p.clk.Advance(2 * time.Minute) // the nack timeout is one minute
	close(release)
	p.waitStatus(id, structs.EvalStatusComplete)
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("scheduler ran %d times: the eval was redelivered while its plan waited", n)
	}
}
