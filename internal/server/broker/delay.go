package broker

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// delayUntilLocked holds a tracked eval until at, or enqueues it at once
// when at is not in the future. A nack-delayed eval keeps its job's slot
// meanwhile (the job stays blocked for others); a WaitUntil-delayed one
// claims it only when released.
func (b *Broker) delayUntilLocked(e *structs.Evaluation, at time.Time) {
	if !at.After(b.clk.Now()) {
		b.enqueueLocked(e, e.Type)
		return
	}
	b.delayed.push(delayedEval{eval: e, at: at})
	b.noteLocked(e, ObserveDelayed)
	b.armDelayTimerLocked()
}

// armDelayTimerLocked keeps one clock timer, for the earliest held eval.
func (b *Broker) armDelayTimerLocked() {
	at, ok := b.delayed.next()
	if !ok {
		b.stopDelayTimerLocked()
		return
	}
	if b.delayTimer != nil && b.delayAt.Equal(at) {
		return
	}
	b.stopDelayTimerLocked()
	gen := b.delayGen
	b.delayAt = at
	b.delayTimer = b.clk.AfterFunc(at.Sub(b.clk.Now()), func() { b.releaseDelayed(gen) })
}

// stopDelayTimerLocked stops the timer; bumping the generation makes a
// callback that already fired (real clock, waiting for the lock) a no-op.
func (b *Broker) stopDelayTimerLocked() {
	if b.delayTimer != nil {
		b.delayTimer.Stop()
		b.delayTimer = nil
	}
	b.delayGen++
}

// releaseDelayed is the delay timer's callback: enqueue every due eval.
func (b *Broker) releaseDelayed(gen uint64) {
	b.mu.Lock()
	defer b.unlock()
	if gen != b.delayGen {
		return
	}
	b.delayTimer = nil
	now := b.clk.Now()
	for {
		at, ok := b.delayed.next()
		if !ok || at.After(now) {
			break
		}
		d := b.delayed.pop()
		b.enqueueLocked(d.eval, d.eval.Type)
	}
	b.armDelayTimerLocked()
}
