package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// Every harness test checks that a fully committed plan carried exactly
// the eval the scheduler then wrote (harness.checkFinal). These tests take
// the carried eval as the leader does, and check the scheduler writes
// nothing after it, and carries nothing when it has more to write.

func TestFinalEval_FullCommitFinishesTheEvalWithThePlan(t *testing.T) {
	h := newHarness(t)
	h.finishWithPlan = true
	h.upsertNode(mockNode())
	_, eval := h.register(mockJob("web", 3))

	if len(h.updated) != 0 {
		t.Fatalf("the scheduler wrote %d eval updates after a plan that finished the eval", len(h.updated))
	}
	final := h.lastPlan().FinalEval
	if final == nil || final.ID != eval.ID {
		t.Fatalf("plan carried final eval %+v, want eval %s", final, eval.ID)
	}
	stored, err := h.store.EvalByID(nil, eval.ID)
	h.must(err)
	if stored.Status != structs.EvalStatusComplete || stored.QueuedAllocations["web"] != 0 {
		t.Fatalf("stored eval %s queued=%v, want complete with nothing queued", stored.Status, stored.QueuedAllocations)
	}
}

// A plan that places part of the job still finishes the eval: the
// blocked follow-up is written before the plan, and the final status
// points at it.
func TestFinalEval_PartialPlacementCarriesTheBlockedPointer(t *testing.T) {
	h := newHarness(t)
	h.finishWithPlan = true
	h.upsertNode(mockNode())
	j := mockJob("big", 3)
	j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000 // two fit on the node
	_, eval := h.register(j)

	if len(h.created) != 1 || len(h.updated) != 0 {
		t.Fatalf("created %d, updated %d evals; want the blocked eval, then nothing", len(h.created), len(h.updated))
	}
	stored, err := h.store.EvalByID(nil, eval.ID)
	h.must(err)
	if stored.Status != structs.EvalStatusComplete || stored.BlockedEval != h.created[0].ID || stored.QueuedAllocations["web"] != 1 {
		t.Fatalf("stored eval %s blocked=%q queued=%v, want complete, pointing at %s, one queued",
			stored.Status, stored.BlockedEval, stored.QueuedAllocations, h.created[0].ID)
	}
}

// A blocked eval that places some allocs but not all stays blocked
// (ReblockEval): its plan must not carry a complete status, or the
// leader would finish an eval that still waits for capacity.
func TestFinalEval_ReblockedEvalCarriesNothing(t *testing.T) {
	h := newHarness(t)
	h.finishWithPlan = true
	h.upsertNode(mockNode())
	filler := mockJob("filler", 2)
	filler.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000 // fills the node
	filler, _ = h.register(filler)
	big := mockJob("big", 3)
	big.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000
	h.register(big)
	blocked := h.created[len(h.created)-1]
	if blocked.Status != structs.EvalStatusBlocked {
		t.Fatalf("setup: last created eval is %s, want blocked", blocked.Status)
	}
	// The filler stops: room for two of the three.
	stopped := filler.Copy()
	stopped.Stop = true
	h.process(mockEval(h.upsertJob(stopped), structs.EvalTriggerJobDeregister))

	before := len(h.plans)
	h.process(blocked)
	if len(h.plans) == before || len(h.lastPlan().NodeAllocation) == 0 {
		t.Fatal("the blocked eval placed nothing")
	}
	if f := h.lastPlan().FinalEval; f != nil {
		t.Fatalf("the plan of an eval that is re-blocked carried final status %s", f.Status)
	}
	if len(h.reblock) != 1 || h.reblock[0].ID != blocked.ID {
		t.Fatalf("reblocked %+v, want %s", h.reblock, blocked.ID)
	}
}
