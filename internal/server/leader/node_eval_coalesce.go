package leader

import "github.com/drover-project/drover/internal/structs"

// CoalesceNodeEvals splits a node event's evals into those to write and
// those whose job already has an eval waiting in the broker (not yet
// dequeued). The waiting eval will schedule the job against state that
// includes this node event, so writing another only for the broker to
// cancel it as superseded costs raft, memory and GC for nothing (the
// flapping-cluster example of docs/design.md: thousands of evals, a few hundred processed).
// Only the leader coalesces; elsewhere every eval is written.
func (l *Leader) CoalesceNodeEvals(evals []*structs.Evaluation) (write, covered []*structs.Evaluation) {
	if !l.active.Load() {
		return evals, nil
	}
	for _, ev := range evals {
		if ev.TriggeredBy == structs.EvalTriggerNodeUpdate && l.broker.Waiting(ev.Namespace, ev.JobID) {
			covered = append(covered, ev)
		} else {
			write = append(write, ev)
		}
	}
	return write, covered
}

// WriteUncovered runs once the node event has committed: a covered job
// whose waiting eval was dequeued in the meantime may have been
// snapshotted before the commit, so its eval is written after all. Any
// still waiting will be dequeued after the commit and see it.
func (l *Leader) WriteUncovered(covered []*structs.Evaluation) ([]*structs.Evaluation, error) {
	var late []*structs.Evaluation
	for _, ev := range covered {
		if !l.broker.Waiting(ev.Namespace, ev.JobID) {
			late = append(late, ev)
		}
	}
	if len(late) == 0 {
		return nil, nil
	}
	return late, l.srv.UpsertEvals(late)
}
