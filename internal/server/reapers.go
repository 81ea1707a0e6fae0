package server

import (
	"context"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/structs"
)

// Descriptions written on evals the leader's reapers change.
const (
	descDeliveryLimit    = "evaluation reached its delivery limit"
	descSuperseded       = "canceled after a more recent evaluation of the job was processed"
	descDuplicateBlocked = "canceled: the job has a newer blocked evaluation"
)

// cancelBatchSize bounds how many evals one cancel write carries.
const cancelBatchSize = 1000

// evalQueue is a small mutex-guarded work list with a wakeup channel. The
// FSM adds to it during Apply (where it must not block or write to raft);
// a leader goroutine drains it.
type evalQueue struct {
	mu    sync.Mutex
	evals []*structs.Evaluation
	wake  chan struct{}
}

func newEvalQueue() *evalQueue { return &evalQueue{wake: make(chan struct{}, 1)} }

func (q *evalQueue) push(e ...*structs.Evaluation) {
	q.mu.Lock()
	q.evals = append(q.evals, e...)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *evalQueue) drain() []*structs.Evaluation {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.evals
	q.evals = nil
	return out
}

// needsFailedFollowUp reports whether a failed eval still needs its
// failed-follow-up: not when its failure kind says retrying cannot help.
func needsFailedFollowUp(e *structs.Evaluation) bool {
	return e.Status == structs.EvalStatusFailed && e.NextEval == "" && e.FailureKind.Retryable()
}

func (s *Server) queueFailedFollowUp(e *structs.Evaluation) { s.failedEvals.push(e) }

// reapFailedEvals takes evals a scheduler marked failed (the delivery-
// limit ones come through dequeueUndeliverable), and gives each one
// delayed failed-follow-up eval (new.PreviousEval = old.ID,
// old.NextEval = new.ID), written together in one raft entry.
func (s *Server) reapFailedEvals(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.failedEvals.wake:
			s.stepFailedEvals()
		}
	}
}

// stepFailedEvals writes the follow-ups of the failed evals queued so far.
func (s *Server) stepFailedEvals() bool {
	evals := s.failedEvals.drain()
	for _, e := range evals {
		if err := s.writeFailedFollowUp(e, ""); err != nil && s.ctx.Err() == nil {
			s.log.Error("failed-follow-up write failed", "eval", e.ID, "error", err)
		}
	}
	return len(evals) > 0
}

// dequeueUndeliverable drains the broker's failed queue: each eval there
// was nacked DeliveryLimit times.
func (s *Server) dequeueUndeliverable(ctx context.Context) {
	for ctx.Err() == nil {
		s.stepUndeliverable(ctx)
	}
}

// stepUndeliverable takes one eval off the failed queue (waiting for one
// until ctx is done) and writes it failed with its follow-up.
func (s *Server) stepUndeliverable(ctx context.Context) bool {
	eval, token, err := s.broker.Dequeue(ctx, []string{broker.FailedQueue})
	if err != nil || eval == nil {
		return false
	}
	failed := eval.Copy()
	failed.Status = structs.EvalStatusFailed
	failed.StatusDescription = descDeliveryLimit
	failed.FailureKind = structs.EvalFailureDeliveryLimit
	if err := s.writeFailedFollowUp(failed, descDeliveryLimit); err != nil {
		s.log.Error("failed to reap undeliverable eval", "eval", eval.ID, "error", err)
		_ = s.broker.Nack(eval.ID, token)
		return true
	}
	_ = s.broker.Ack(eval.ID, token)
	return true
}

// writeFailedFollowUp writes the failed eval with its NextEval pointer and
// its delayed follow-up in one entry.
func (s *Server) writeFailedFollowUp(failed *structs.Evaluation, note string) error {
	current, err := s.State().EvalByID(nil, failed.ID)
	if err != nil || current == nil || (current.NextEval != "" && note == "") {
		return err // gone (GC) or already followed up
	}
	now := s.now()
	old := failed.Copy()
	followUp := old.CreateFailedFollowUpEval(s.config.NewID(), s.failedFollowUpDelay(), now)
	old.NextEval = followUp.ID
	old.ModifyTime = now.UnixNano()
	s.timeline.Record(old.ID, structs.EvalStatusFailed, "", old.StatusDescription)
	s.timeline.Record(followUp.ID, structs.EvalStatusPending, "", "failed-follow-up of "+old.ID)
	return s.UpsertEvals([]*structs.Evaluation{old, followUp})
}

// failedFollowUpDelay is the base delay plus random jitter, so a burst of
// failures does not come back as a burst.
func (s *Server) failedFollowUpDelay() time.Duration {
	d := s.config.FailedFollowUpBaseDelay
	if j := s.config.FailedFollowUpJitter; j > 0 {
		d += time.Duration(s.randInt63n(int64(j)))
	}
	return d
}

// reapCancelableEvals cancels, in one raft write per batch, the evals the
// broker found superseded by a newer eval of the same job.
func (s *Server) reapCancelableEvals(ctx context.Context) {
	for {
		// Not every ack wakes the reaper (the undeliverable-eval reaper acks
		// the broker directly), so it also looks every 5 s. The timer is
		// made before the select, where coverage (and so mutation testing)
		// sees it.
		poll := s.config.Clock.After(5 * time.Second)
		select {
		case <-ctx.Done():
			return
		case <-s.cancelableWake:
		case <-poll:
		}
		s.stepCancelable()
	}
}

// stepCancelable cancels every superseded eval the broker holds.
func (s *Server) stepCancelable() bool {
	progress := false
	for {
		batch := s.broker.Cancelable(cancelBatchSize)
		if len(batch) == 0 {
			return progress
		}
		s.cancelEvals(batch, descSuperseded)
		progress = true
	}
}

// reapDuplicateBlockedEvals cancels blocked evals replaced by a newer
// blocked eval of the same job (blocked -> canceled).
func (s *Server) reapDuplicateBlockedEvals(ctx context.Context) {
	for ctx.Err() == nil {
		s.stepDuplicateBlocked(ctx)
	}
}

// stepDuplicateBlocked cancels the duplicates the tracker holds, waiting
// for some until ctx is done.
func (s *Server) stepDuplicateBlocked(ctx context.Context) bool {
	dups := s.blocked.Duplicates(ctx)
	if len(dups) > 0 {
		s.cancelEvals(dups, descDuplicateBlocked)
	}
	return len(dups) > 0
}

// periodicUnblockFailed retries evals blocked by max-plan-attempts: the
// conflicts that blocked them are likely resolved by now.
func (s *Server) periodicUnblockFailed(ctx context.Context) {
	s.every(ctx, s.config.UnblockFailedInterval, s.blocked.UnblockFailed)
}

// cancelEvals marks evals canceled with a reason, in one raft write.
func (s *Server) cancelEvals(evals []*structs.Evaluation, reason string) {
	now := s.now().UnixNano()
	out := make([]*structs.Evaluation, 0, len(evals))
	for _, e := range evals {
		c := e.Copy()
		c.Status, c.StatusDescription, c.ModifyTime = structs.EvalStatusCanceled, reason, now
		s.timeline.Record(c.ID, structs.EvalStatusCanceled, "", reason)
		c.Timeline = s.timeline.Entries(c.ID)
		out = append(out, c)
	}
	if err := s.UpsertEvals(out); err != nil {
		s.log.Error("cancel evals failed", "count", len(out), "reason", reason, "error", err)
	}
}

// notifyAcked wakes the cancelable reaper: an ack may have superseded evals.
func (s *Server) notifyAcked() {
	select {
	case s.cancelableWake <- struct{}{}:
	default:
	}
}
