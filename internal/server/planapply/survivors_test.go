package planapply

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// countingSource counts the snapshots the applier takes.
type countingSource struct {
	StateSource
	taken int
}

func (c *countingSource) SnapshotMinIndex(ctx context.Context, index uint64) (*state.StateSnapshot, error) {
	c.taken++
	return c.StateSource.SnapshotMinIndex(ctx, index)
}

// Plans computed on the state the pipeline already holds are evaluated on
// the overlay it keeps while entries are in raft: one snapshot for both,
// not one per plan.
func TestPipeline_PlanAtTheOverlaysIndexReusesIt(t *testing.T) {
	h, g, job := pipelineFixture(t)
	src := &countingSource{StateSource: StoreSource{Store: h.store}}
	h.reconfigure(func(c *Config) { c.State = src })
	var plans []*PendingPlan
	for _, id := range []string{"w1", "w2"} {
		p := h.plan("eval-"+id, job)
		p.SnapshotIndex = h.store.LatestIndex()
		addTo(&p.NodeAllocation, mockAlloc(id, job, "n2", 800, 100, 100))
		plans = append(plans, h.enqueue(p))
	}
	evaluateEach(h, plans...)
	if src.taken != 1 || g.proposed() != 2 {
		t.Fatalf("%d snapshots for two plans at the same index (want 1), %d proposed (want 2)", src.taken, g.proposed())
	}
	g.commitNext(t)
	g.commitNext(t)
	waitAnswered(t, plans...)
}

// An entry that has committed but whose outcome the pipeline has not yet
// collected is in the fresh snapshot a newer plan is evaluated on, and is
// not laid on top of it a second time: the plan that fits next to it is
// accepted, and does not wait for it.
func TestPipeline_CommittedEntryCountedOnceInAFreshSnapshot(t *testing.T) {
	h, g, job := pipelineFixture(t) // n1: 3000 of 4000 MHz used
	p1 := h.plan("eval-1", job)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job, "n1", 800, 100, 100))
	evaluateEach(h, h.enqueue(p1))
	p2 := h.plan("eval-2", job) // fits next to w1 once, not twice
	addTo(&p2.NodeAllocation, mockAlloc("w2", job, "n1", 100, 100, 100))
	pp2 := h.enqueue(p2)
	h.step(func(a *Applier, ctx context.Context) {
		// w1's entry commits and its outcome is known, but the goroutine
		// that collected it waits for this step to settle the pipeline:
		// the pipeline still holds it in flight.
		p2.SnapshotIndex = g.commitNext(t)
		<-a.inflight[0].done
		a.evaluate(ctx, pp2)
		if g.proposed() != 1 {
			t.Errorf("the plan fitting next to a committed entry was not proposed (%d in raft, %d waiting)", g.proposed(), len(a.waiting))
		}
	})
	if t.Failed() {
		return
	}
	index := g.commitNext(t)
	waitAnswered(t, pp2)
	if res, err := pp2.Wait(); err != nil || res.AllocIndex != index || len(res.RejectedNodes) != 0 {
		t.Fatalf("second plan: %+v %v, want committed at %d", res, err, index)
	}
	assertFits(t, h, "n1")
}

// Port 0 is no port: allocs listing it do not collide on it.
func TestApplier_PortZeroIsNotClaimed(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	h.upsertAllocs(withPort(mockAlloc("existing", job, "n1", 100, 100, 100), 0))
	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, withPort(mockAlloc("new", job, "n1", 100, 100, 100), 0))
	res, err := h.submit(plan)
	if err != nil || len(res.RejectedNodes) != 0 || h.alloc("new") == nil {
		t.Fatalf("result %+v %v: an unset port was treated as claimed", res, err)
	}
}

// A plan whose only node lists are empty changes nothing, so nothing is
// committed: no raft entry, no alloc index.
func TestApplier_EmptyNodeListsCommitNothing(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	plan := h.plan("eval-1", job)
	plan.NodeAllocation = map[string][]*structs.Allocation{"n1": {}}
	plan.NodeUpdate = map[string][]*structs.Allocation{"n1": {}}
	res, err := h.submit(plan)
	if err != nil {
		t.Fatal(err)
	}
	if h.raft.calls != 0 || res.AllocIndex != 0 || len(res.NodeAllocation)+len(res.NodeUpdate)+len(res.NodePreemptions) != 0 {
		t.Fatalf("empty plan: %d raft entries, result %+v", h.raft.calls, res)
	}
}

// The preemption eval is made from the job version the preempted alloc
// runs, whether the plan carries that job on the alloc or (compacted)
// leaves the applier to find it on the stored alloc; the job's newer
// version in state does not change it.
func TestApplier_PreemptionEvalFromThePreemptedAllocsJob(t *testing.T) {
	for _, compact := range []bool{false, true} {
		h := newHarness(t)
		high := mockJob("high", 90)
		low := mockJob("low", 30)
		setupNodes(h, high, "n1")
		h.upsertJob(low)
		h.upsertAllocs(mockAlloc("l1", low, "n1", 3000, 100, 100))
		newer := low.Copy()
		newer.Priority = 40
		h.upsertJob(newer)
		runs := h.alloc("l1").Job
		current, err := h.store.JobByID(nil, low.Namespace, low.ID)
		h.must(err)
		if runs.Priority == current.Priority || runs.JobModifyIndex == current.JobModifyIndex {
			t.Fatalf("fixture: the alloc's job (%d, %d) is the current one", runs.Priority, runs.JobModifyIndex)
		}

		plan := h.plan("eval-high", high)
		addTo(&plan.NodeAllocation, mockAlloc("h1", high, "n1", 3000, 100, 100))
		victim := preempted(h.alloc("l1"), "h1")
		if compact {
			victim.Job = nil
		}
		addTo(&plan.NodePreemptions, victim)
		if _, err := h.submit(plan); err != nil {
			t.Fatal(err)
		}
		evals := h.raft.reqs[0].PreemptionEvals
		if len(evals) != 1 || evals[0].Priority != runs.Priority || evals[0].JobModifyIndex != runs.JobModifyIndex {
			t.Fatalf("compact %v: preemption evals %+v, want one at the alloc's job priority %d, job modify index %d",
				compact, evals, runs.Priority, runs.JobModifyIndex)
		}
	}
}
