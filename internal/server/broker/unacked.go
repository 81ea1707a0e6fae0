package broker

import (
	"fmt"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// unacked is one delivery of an eval to a worker.
type unacked struct {
	eval  *structs.Evaluation
	token string
	queue string // the queue it was dequeued from (its type, or FailedQueue)
	timer clock.Timer
	gen   uint64 // invalidates callbacks of replaced or stopped nack timers
}

func (u *unacked) stopTimer() {
	if u.timer != nil {
		u.timer.Stop()
		u.timer = nil
	}
	u.gen++
}

// armNackTimerLocked (re)starts the delivery's nack timer: a worker that
// stops making progress (crashed, partitioned) gets its eval nacked.
func (b *Broker) armNackTimerLocked(u *unacked) {
	u.stopTimer()
	gen := u.gen
	u.timer = b.clk.AfterFunc(b.cfg.NackTimeout, func() { b.nackTimedOut(u, gen) })
}

// nackTimedOut is the nack timer's callback. It acts only if u is still
// the eval's current delivery and its timer was not replaced since: with
// a real clock the callback can race a Stop.
func (b *Broker) nackTimedOut(u *unacked, gen uint64) {
	b.mu.Lock()
	defer b.unlock()
	if b.unack[u.eval.ID] != u || u.gen != gen {
		return
	}
	b.nackLocked(u)
}

// outstandingLocked finds the delivery of evalID made under token.
func (b *Broker) outstandingLocked(evalID, token string) (*unacked, error) {
	if !b.enabled {
		return nil, ErrNotEnabled
	}
	u, ok := b.unack[evalID]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotOutstanding, evalID)
	}
	if u.token != token {
		return nil, fmt.Errorf("%w: %s", ErrTokenMismatch, evalID)
	}
	return u, nil
}

// Outstanding returns the token evalID is currently delivered under; the
// plan applier rejects plans carrying any other token.
func (b *Broker) Outstanding(evalID string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, ok := b.unack[evalID]
	if !ok {
		return "", false
	}
	return u.token, true
}

// OutstandingReset pushes the nack timeout back: the worker is making
// progress (e.g. submitting a plan).
func (b *Broker) OutstandingReset(evalID, token string) error {
	b.mu.Lock()
	defer b.unlock()
	u, err := b.outstandingLocked(evalID, token)
	if err != nil {
		return err
	}
	b.armNackTimerLocked(u)
	return nil
}

// PauseNackTimeout stops the nack timer while the worker waits on the
// leader itself (its plan sits in the plan queue), so a slow plan applier
// does not get the eval redelivered. ResumeNackTimeout restarts it.
func (b *Broker) PauseNackTimeout(evalID, token string) error {
	b.mu.Lock()
	defer b.unlock()
	u, err := b.outstandingLocked(evalID, token)
	if err != nil {
		return err
	}
	u.stopTimer()
	return nil
}

// ResumeNackTimeout restarts a paused (or running) nack timer in full.
func (b *Broker) ResumeNackTimeout(evalID, token string) error {
	return b.OutstandingReset(evalID, token)
}
