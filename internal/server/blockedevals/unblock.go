package blockedevals

import "github.com/drover-project/drover/internal/structs"

// Unblock releases, in one EnqueueAll call, every job-wide eval that
// capacity of computedClass might help (see matchClass), because at raft
// index capacity of that class appeared: a node registered, freed
// resources or showed a new class.
func (t *Tracker) Unblock(computedClass string, index uint64) {
	t.step(func() release {
		t.classIndexes.record(computedClass, index, t.clk.Now())
		return t.releaseEntries(t.set.matchClass(computedClass))
	})
}

// UnblockNode releases the per-node evals (system jobs) blocked on nodeID,
// which changed at raft index.
func (t *Tracker) UnblockNode(nodeID string, index uint64) {
	t.step(func() release {
		t.nodeIndexes.record(nodeID, index, t.clk.Now())
		return t.releaseEntries(t.set.matchNode(nodeID))
	})
}

// UnblockFailed releases every eval blocked because its plan was rejected
// too often (max-plan-attempts). Those did not lack capacity, so no
// capacity change is guaranteed to release them; the leader calls this
// periodically to retry them.
func (t *Tracker) UnblockFailed() {
	t.step(func() release {
		return t.releaseEntries(t.set.matchTrigger(structs.EvalTriggerMaxPlans))
	})
}
