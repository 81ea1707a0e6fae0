package leader

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// DescJobStopped is written on blocked evals canceled because their job
// was stopped or purged.
const DescJobStopped = "canceled: the job was stopped or purged"

// A blocked eval waits for capacity to place its job's allocs. Once the
// job is stopped or purged there is nothing left to place, so the eval is
// canceled at once instead of waiting, blocked, for an unrelated capacity
// change to wake it into a no-op. Three ways in: the job's deregister eval
// is written (its blocked evals are dropped from the tracker), a blocked
// eval is written for a job already stopped (a scheduler that read the
// state before the stop), and a new leader finds such evals in state.

// untrackStoppedJob runs in the FSM sink when a job-deregister eval is
// written: the job's blocked evals leave the tracker and are queued for
// the canceling duty.
func (l *Leader) untrackStoppedJob(e *structs.Evaluation) {
	if e.TriggeredBy != structs.EvalTriggerJobDeregister {
		return
	}
	if dropped := l.blocked.Untrack(e.Namespace, e.JobID); len(dropped) > 0 {
		l.stoppedJobBlocked.push(dropped...)
	}
}

// jobStoppedOrGone reports whether the eval's job is stopped or no longer
// stored.
func (l *Leader) jobStoppedOrGone(e *structs.Evaluation) bool {
	job, err := l.srv.State().JobByID(nil, e.Namespace, e.JobID)
	return err == nil && (job == nil || job.Stop)
}

// stepStoppedJobBlocked cancels the queued blocked evals of stopped or
// purged jobs (blocked -> canceled) in one raft write.
func (l *Leader) stepStoppedJobBlocked(context.Context) bool {
	evals := l.stoppedJobBlocked.drain()
	if len(evals) > 0 {
		l.cancelEvals(evals, DescJobStopped)
	}
	return len(evals) > 0
}
