package leader

import (
	"context"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/structs"
)

// Descriptions written on evals the leader's reapers change.
const (
	DescDeliveryLimit    = "evaluation reached its delivery limit"
	DescSuperseded       = "canceled after a more recent evaluation of the job was processed"
	DescDuplicateBlocked = "canceled: the job has a newer blocked evaluation"
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

// stepFailedEvals takes evals a scheduler marked failed (the delivery-
// limit ones come through the undeliverable duty), and gives each one
// delayed failed-follow-up eval (new.PreviousEval = old.ID,
// old.NextEval = new.ID), written together in one raft entry.
func (l *Leader) stepFailedEvals(context.Context) bool {
	evals := l.failedEvals.drain()
	for _, e := range evals {
		if err := l.writeFailedFollowUp(e, ""); err != nil && l.c.Ctx.Err() == nil {
			l.log.Error("failed-follow-up write failed", "eval", e.ID, "error", err)
		}
	}
	return len(evals) > 0
}

// Bounds of the undeliverable duty's backoff after a failed take or
// write: without it, a broker that refuses (disabled while a snapshot
// restore rebuilds it) or a write that keeps failing (the nacked eval
// comes straight back) would spin the duty.
const (
	retryMin = 50 * time.Millisecond
	retryMax = 5 * time.Second
)

// backoff is a bounded exponential wait on the injected clock.
type backoff struct {
	clk      clock.Clock
	min, max time.Duration
	cur      time.Duration
}

// fail waits the next backoff (doubling, from min up to max), unless ctx
// is done: the stepped mode, whose ctx is, never waits (nor arms a timer).
func (b *backoff) fail(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	b.cur = min(max(2*b.cur, b.min), b.max)
	select {
	case <-ctx.Done():
	case <-b.clk.After(b.cur):
	}
}

func (b *backoff) ok() { b.cur = 0 }

// undeliverableStep drains the broker's failed queue: each eval there was
// nacked DeliveryLimit times. Each step takes one eval off the failed
// queue (waiting for one until ctx is done) and writes it failed with its
// follow-up; after a failed take or write it backs off.
func (l *Leader) undeliverableStep(clk clock.Clock) func(context.Context) bool {
	retry := &backoff{clk: clk, min: retryMin, max: retryMax}
	return func(ctx context.Context) bool {
		eval, token, err := l.broker.Dequeue(ctx, []string{broker.FailedQueue})
		if err != nil || eval == nil {
			if err != nil && ctx.Err() == nil {
				retry.fail(ctx)
			}
			return false
		}
		failed := eval.Copy()
		failed.Status = structs.EvalStatusFailed
		failed.StatusDescription = DescDeliveryLimit
		failed.FailureKind = structs.EvalFailureDeliveryLimit
		if err := l.writeFailedFollowUp(failed, DescDeliveryLimit); err != nil {
			l.log.Error("failed to reap undeliverable eval", "eval", eval.ID, "error", err)
			_ = l.broker.Nack(eval.ID, token)
			retry.fail(ctx)
			return true
		}
		retry.ok()
		_ = l.broker.Ack(eval.ID, token)
		return true
	}
}

// writeFailedFollowUp writes the failed eval with its NextEval pointer and
// its delayed follow-up in one entry.
func (l *Leader) writeFailedFollowUp(failed *structs.Evaluation, note string) error {
	current, err := l.srv.State().EvalByID(nil, failed.ID)
	if err != nil || current == nil || (current.NextEval != "" && note == "") {
		return err // gone (GC) or already followed up
	}
	now := l.now()
	old := failed.Copy()
	followUp := old.CreateFailedFollowUpEval(l.c.NewID(), l.failedFollowUpDelay(), now)
	old.NextEval = followUp.ID
	old.ModifyTime = now.UnixNano()
	l.timeline.Record(old.ID, structs.EvalStatusFailed, "", old.StatusDescription)
	l.timeline.Record(followUp.ID, structs.EvalStatusPending, "", "failed-follow-up of "+old.ID)
	return l.srv.UpsertEvals([]*structs.Evaluation{old, followUp})
}

// failedFollowUpDelay is the base delay plus random jitter, so a burst of
// failures does not come back as a burst.
func (l *Leader) failedFollowUpDelay() time.Duration {
	d := l.c.FailedFollowUpBaseDelay
	if j := l.c.FailedFollowUpJitter; j > 0 {
		d += time.Duration(l.c.Rand(int64(j)))
	}
	return d
}

// stepCancelable cancels, in one raft write per batch, every eval the
// broker found superseded by a newer eval of the same job.
func (l *Leader) stepCancelable(context.Context) bool {
	progress := false
	for {
		batch := l.broker.Cancelable(cancelBatchSize)
		if len(batch) == 0 {
			return progress
		}
		l.cancelEvals(batch, DescSuperseded)
		progress = true
	}
}

// stepDuplicateBlocked cancels blocked evals replaced by a newer blocked
// eval of the same job (blocked -> canceled) that the tracker holds,
// waiting for some until ctx is done.
func (l *Leader) stepDuplicateBlocked(ctx context.Context) bool {
	dups := l.blocked.Duplicates(ctx)
	if len(dups) > 0 {
		l.cancelEvals(dups, DescDuplicateBlocked)
	}
	return len(dups) > 0
}

// cancelEvals marks evals canceled with a reason, in one raft write.
func (l *Leader) cancelEvals(evals []*structs.Evaluation, reason string) {
	now := l.now().UnixNano()
	out := make([]*structs.Evaluation, 0, len(evals))
	for _, e := range evals {
		c := e.Copy()
		c.Status, c.StatusDescription, c.ModifyTime = structs.EvalStatusCanceled, reason, now
		l.timeline.Record(c.ID, structs.EvalStatusCanceled, "", reason)
		c.Timeline = l.timeline.Entries(c.ID)
		out = append(out, c)
	}
	if err := l.srv.UpsertEvals(out); err != nil {
		l.log.Error("cancel evals failed", "count", len(out), "reason", reason, "error", err)
	}
}
