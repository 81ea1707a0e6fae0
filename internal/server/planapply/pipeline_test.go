package planapply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// pipelineFixture is a harness on a gated raft with a nearly full node n1
// (3000 of 4000 MHz used) and an empty node n2.
func pipelineFixture(t *testing.T) (*harness, *gatedRaft, *structs.Job) {
	h := newHarness(t)
	g := &gatedRaft{fake: h.raft}
	h.useRaft(g)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1", "n2")
	h.upsertAllocs(mockAlloc("existing", job, "n1", 3000, 100, 100))
	return h, g, job
}

// evaluateEach takes each plan through the pipeline's first step.
func evaluateEach(h *harness, plans ...*PendingPlan) {
	for _, p := range plans {
		h.step(func(a *Applier, ctx context.Context) { a.evaluate(ctx, p); a.settle(ctx) })
	}
}

// waitAnswered waits until every plan is answered: a goroutine per entry
// collects its outcome from the gated raft and settles the pipeline.
func waitAnswered(t *testing.T, plans ...*PendingPlan) {
	t.Helper()
	for _, p := range plans {
		waitFor(t, func() bool { return answered(p) })
	}
}

// Two plans that each fit on n1 alone, but not together: the second is
// evaluated while the first is still in raft, on the state overlaid with
// the first's placement, and is rejected; neither is answered before the
// first entry commits.
func TestPipeline_TwoPlansSameNode_NoOvercommit(t *testing.T) {
	h, g, job := pipelineFixture(t)
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n1", 800, 100, 100))
	p2 := h.plan("eval-2", job)
	addTo(&p2.NodeAllocation, mockAlloc("w2", job, "n1", 800, 100, 100))
	pp1, pp2 := h.enqueue(p1), h.enqueue(p2)

	evaluateEach(h, pp1, pp2)
	if g.proposed() != 1 || answered(pp1) || answered(pp2) {
		t.Fatalf("proposed %d, answered %v %v: want only the first in raft, nobody answered", g.proposed(), answered(pp1), answered(pp2))
	}
	index := g.commitNext(t)
	waitAnswered(t, pp1, pp2)

	r1, err1 := pp1.Wait()
	r2, err2 := pp2.Wait()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if r1.AllocIndex != index || len(r1.RejectedNodes) != 0 {
		t.Fatalf("first plan: %+v (entry %d)", r1, index)
	}
	if !slices.Equal(r2.RejectedNodes, []string{"n1"}) || r2.RefreshIndex < index || r2.AllocIndex != 0 {
		t.Fatalf("second plan: %+v; want n1 rejected, refresh to at least %d", r2, index)
	}
	if g.proposed() != 0 || h.alloc("w2") != nil {
		t.Fatal("the second plan over-committed n1")
	}
	assertFits(t, h, "n1")
}

// Plans that fit together on one node are all proposed while the first
// is still in raft (raft writes them together), and each learns its own
// entry's index.
func TestPipeline_OverlappingPlansInRaftTogether(t *testing.T) {
	h, g, job := pipelineFixture(t)
	var pending []*PendingPlan
	for i := range 4 {
		p := h.plan(fmt.Sprintf("eval-%d", i), job)
		addTo(&p.NodeAllocation, mockAlloc(fmt.Sprintf("w%d", i), job, "n2", 900, 100, 100))
		pending = append(pending, h.enqueue(p))
	}
	evaluateEach(h, pending...)
	if g.proposed() != 4 {
		t.Fatalf("%d entries in raft, want all 4", g.proposed())
	}
	var indexes []uint64
	for range 4 {
		indexes = append(indexes, g.commitNext(t))
	}
	waitAnswered(t, pending...)
	for i, p := range pending {
		res, err := p.Wait()
		// Fully committed: no refresh, though plans 1-3 were evaluated on
		// top of uncommitted entries (a refresh would make the worker plan
		// again for nothing).
		if err != nil || res.AllocIndex != indexes[i] || len(res.RejectedNodes) != 0 || res.RefreshIndex != 0 {
			t.Fatalf("plan %d: %+v %v, want committed at %d with no refresh", i, res, err, indexes[i])
		}
	}
	assertFits(t, h, "n2")
}

// An entry fails while plans evaluated on top of it wait or are in raft.
// The plan it made the applier reject (no room left on n1) is evaluated
// again on the state without it, fits and is committed. The plan accepted
// on top of it stays valid without it, because the overlay only ever adds
// usage: it commits and n1 is not over-committed.
func TestPipeline_FailedEntry_DependentReevaluated(t *testing.T) {
	h, g, job := pipelineFixture(t)
	var evaluations atomic.Int32
	h.reconfigure(func(c *Config) { c.OnEvaluate = func(time.Duration) { evaluations.Add(1) } })
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n1", 800, 100, 100))
	p2 := h.plan("eval-2", job) // rejected on top of p1
	addTo(&p2.NodeAllocation, mockAlloc("w2", job, "n1", 800, 100, 100))
	p3 := h.plan("eval-3", job) // fits on top of p1
	addTo(&p3.NodeAllocation, mockAlloc("w3", job, "n1", 100, 100, 100))
	pp1, pp2, pp3 := h.enqueue(p1), h.enqueue(p2), h.enqueue(p3)
	evaluateEach(h, pp1, pp2, pp3)
	if g.proposed() != 2 || answered(pp2) {
		t.Fatalf("%d in raft (want p1, p3), p2 answered %v", g.proposed(), answered(pp2))
	}

	g.failNext(t, errRaft)
	if _, err := pp1.Wait(); !errors.Is(err, errRaft) {
		t.Fatalf("failed plan got %v, want %v", err, errRaft)
	}
	waitFor(t, func() bool { return g.proposed() == 2 })
	if n := evaluations.Load(); n != 4 || answered(pp2) {
		t.Fatalf("%d evaluations (want 3, and p2 again), p2 answered %v", n, answered(pp2))
	}
	i3, i2 := g.commitNext(t), g.commitNext(t)
	waitAnswered(t, pp2, pp3)
	for _, c := range []struct {
		p     *PendingPlan
		index uint64
	}{{pp2, i2}, {pp3, i3}} {
		res, err := c.p.Wait()
		if err != nil || res.AllocIndex != c.index || len(res.RejectedNodes) != 0 {
			t.Fatalf("%s: %+v %v, want committed at %d", c.p.Plan.EvalID, res, err, c.index)
		}
	}
	if h.alloc("w1") != nil || h.alloc("w2") == nil || h.alloc("w3") == nil {
		t.Fatal("the failed plan's alloc is in state, or a committed one is not")
	}
	assertFits(t, h, "n1")
}

// A plan computed on newer state than the snapshot the pipeline evaluated
// the plans before it on (here: its job was registered since) is
// evaluated on a fresh snapshot, not rejected as if its job were gone.
func TestPipeline_PlanNewerThanSnapshot(t *testing.T) {
	h, g, job := pipelineFixture(t)
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n2", 800, 100, 100))
	evaluateEach(h, h.enqueue(p1)) // in raft: the snapshot is kept for the next plans
	newJob := mockJob("registered-since", 50)
	h.upsertJob(newJob)
	p2 := h.plan("eval-2", newJob)
	p2.SnapshotIndex = h.store.LatestIndex()
	addTo(&p2.NodeAllocation, mockAlloc("w2", newJob, "n1", 100, 100, 100))
	pp2 := h.enqueue(p2)
	evaluateEach(h, pp2)
	if answered(pp2) || g.proposed() != 2 {
		t.Fatalf("the new job's plan was answered (%v) or not proposed (%d in raft)", answered(pp2), g.proposed())
	}
	g.commitNext(t)
	i2 := g.commitNext(t)
	waitAnswered(t, pp2)
	if res, err := pp2.Wait(); err != nil || res.AllocIndex != i2 || len(res.RejectedNodes) != 0 {
		t.Fatalf("new job's plan: %+v %v", res, err)
	}
}

// Losing leadership (Run's context ends) answers the entry in raft with
// its outcome and fails the plan waiting for it with ErrNotLeader, so its
// worker resubmits to the new leader.
func TestPipeline_LeadershipLoss(t *testing.T) {
	h, g, job := pipelineFixture(t)
	stop := runApplier(h)
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n1", 800, 100, 100))
	f1, err := h.queue.Enqueue(p1)
	h.must(err)
	waitFor(t, func() bool { return g.proposed() == 1 })
	p2 := h.plan("eval-2", job) // rejected on top of p1: waits for it
	addTo(&p2.NodeAllocation, mockAlloc("w2", job, "n1", 800, 100, 100))
	f2, err := h.queue.Enqueue(p2)
	h.must(err)
	waitFor(t, func() bool { return h.queue.Stats() == 0 })

	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	// Run is now in stop, parked on the entry in raft (or, broken, it
	// answered the plan without waiting).
	waitFor(t, func() bool {
		return answered(f1) || testutil.Parked("planapply.(*Applier).stop(", "planapply.runApplier.func1")
	})
	if answered(f1) {
		t.Fatal("a plan was answered before its entry's outcome was known")
	}
	g.failNext(t, errRaft)
	<-stopped
	if _, err := f1.Wait(); !errors.Is(err, errRaft) {
		t.Fatalf("in-flight plan got %v, want %v", err, errRaft)
	}
	if _, err := f2.Wait(); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("waiting plan got %v, want ErrNotLeader", err)
	}
	if g.proposed() != 0 {
		t.Fatal("a plan was proposed after leadership was lost")
	}
}

// At shutdown (Config.Stopping closed, then Run's context ends) the
// applier does not wait for the entry in raft: raft may never apply it
// before it stops. The plan in raft and the one waiting for it fail with
// ErrShuttingDown at once; the entry's later outcome changes nothing.
func TestPipeline_ShutdownDoesNotWaitForRaft(t *testing.T) {
	h, g, job := pipelineFixture(t)
	stopping := make(chan struct{})
	h.reconfigure(func(c *Config) { c.Stopping = stopping })
	stop := runApplier(h)
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n1", 800, 100, 100))
	f1, err := h.queue.Enqueue(p1)
	h.must(err)
	waitFor(t, func() bool { return g.proposed() == 1 })
	p2 := h.plan("eval-2", job) // rejected on top of p1: waits for it
	addTo(&p2.NodeAllocation, mockAlloc("w2", job, "n1", 800, 100, 100))
	f2, err := h.queue.Enqueue(p2)
	h.must(err)
	waitFor(t, func() bool { return h.queue.Stats() == 0 })

	close(stopping)
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	waitFor(t, func() bool {
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	})
	for name, f := range map[string]PlanFuture{"in raft": f1, "waiting": f2} {
		if _, err := f.Wait(); !errors.Is(err, ErrShuttingDown) {
			t.Errorf("plan %s got %v, want ErrShuttingDown", name, err)
		}
	}
	g.commitNext(t) // raft applied it after all: nobody is told
}

// Run with many concurrent submitters and a raft that takes real time to
// commit: plans overlap and are committed in groups, and no node is
// over-committed.
func TestPipeline_RunConcurrentSubmitters(t *testing.T) {
	h := newHarness(t)
	r := newLatencyRaft(h.raft, 2*time.Millisecond)
	defer r.close()
	h.useRaft(r)
	job := mockJob("web", 50)
	nodes := []string{"n1", "n2", "n3"}
	setupNodes(h, job, nodes...)
	stop := runApplier(h)
	submitSpread(t, h, job, nodes, 8, 10)
	stop()
	for _, id := range nodes {
		if used := assertFits(t, h, id); used.CpuShares != 4000-4000%300 {
			t.Fatalf("node %s: %d MHz used, want it filled to %d", id, used.CpuShares, 4000-4000%300)
		}
	}
}

func assertFits(t *testing.T, h *harness, nodeID string) *structs.ComparableResources {
	t.Helper()
	allocs, err := h.store.AllocsByNode(nil, nodeID)
	h.must(err)
	node, err := h.store.NodeByID(nil, nodeID)
	h.must(err)
	ok, dim, used := structs.AllocsFit(node, allocs)
	if !ok {
		t.Fatalf("node %s over-committed on %s: %+v", nodeID, dim, used)
	}
	return used
}

// waitFor is testutil.WaitFor with this package's usual deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the condition", cond)
}
