package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// descJobStopped is written on blocked evals canceled because their job
// was stopped or purged.
const descJobStopped = "canceled: the job was stopped or purged"

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
func (s *Server) untrackStoppedJob(e *structs.Evaluation) {
	if e.TriggeredBy != structs.EvalTriggerJobDeregister {
		return
	}
	if dropped := s.blocked.Untrack(e.Namespace, e.JobID); len(dropped) > 0 {
		s.stoppedJobBlocked.push(dropped...)
	}
}

// jobStoppedOrGone reports whether the eval's job is stopped or no longer
// stored.
func (s *Server) jobStoppedOrGone(e *structs.Evaluation) bool {
	job, err := s.State().JobByID(nil, e.Namespace, e.JobID)
	return err == nil && (job == nil || job.Stop)
}

// reapStoppedJobBlocked cancels the queued blocked evals of stopped or
// purged jobs (blocked -> canceled), one raft write per wakeup.
func (s *Server) reapStoppedJobBlocked(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stoppedJobBlocked.wake:
			s.stepStoppedJobBlocked()
		}
	}
}

// stepStoppedJobBlocked cancels the queued evals in one raft write.
func (s *Server) stepStoppedJobBlocked() bool {
	evals := s.stoppedJobBlocked.drain()
	if len(evals) > 0 {
		s.cancelEvals(evals, descJobStopped)
	}
	return len(evals) > 0
}
