package broker

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// TryDequeue delivers the best ready eval among schedulers, or nil when
// none is ready. It never blocks: the simulator's step. The eval must not
// be modified (copy it first); the token identifies this delivery for
// Ack, Nack and OutstandingReset.
func (b *Broker) TryDequeue(schedulers []string) (*structs.Evaluation, string, error) {
	b.mu.Lock()
	defer b.unlock()
	return b.dequeueLocked(schedulers)
}

func (b *Broker) dequeueLocked(schedulers []string) (*structs.Evaluation, string, error) {
	if !b.enabled {
		return nil, "", ErrNotEnabled
	}
	queue, ok := b.ready.best(schedulers)
	if !ok {
		return nil, "", nil
	}
	e := b.ready.pop(queue)
	b.deliveries[e.ID]++
	u := &unacked{eval: e, token: b.cfg.NewToken(), queue: queue}
	b.unack[e.ID] = u
	b.armNackTimerLocked(u)
	b.noteLocked(e, ObserveScheduling)
	return e, u.token, nil
}

// Dequeue blocks until an eval is ready among schedulers, the timeout (on
// the broker's clock) passes, or the broker is disabled. timeout <= 0
// waits until an eval arrives or the broker is disabled. A timeout returns
// a nil eval and a nil error.
func (b *Broker) Dequeue(schedulers []string, timeout time.Duration) (*structs.Evaluation, string, error) {
	var done chan struct{}
	if timeout > 0 {
		done = make(chan struct{})
		t := b.clk.AfterFunc(timeout, func() { close(done) })
		defer t.Stop()
	}
	e, token, err, _ := b.wait(schedulers, done)
	return e, token, err
}

// DequeueCtx blocks until an eval is ready among schedulers, ctx is done
// (returning ctx.Err()), or the broker is disabled (ErrNotEnabled).
func (b *Broker) DequeueCtx(ctx context.Context, schedulers []string) (*structs.Evaluation, string, error) {
	e, token, err, stopped := b.wait(schedulers, ctx.Done())
	if stopped {
		return nil, "", ctx.Err()
	}
	return e, token, err
}

// wait loops: try to dequeue, else sleep until woken or done. Registering
// as a waiter under the same lock as the failed attempt means no wakeup
// can be missed between the two.
func (b *Broker) wait(schedulers []string, done <-chan struct{}) (*structs.Evaluation, string, error, bool) {
	w := newWaiter(schedulers)
	defer b.removeWaiter(w)
	for {
		e, token, err := b.dequeueOrRegister(w)
		if e != nil || err != nil {
			return e, token, err, false
		}
		select {
		case <-w.wake:
		case <-done:
			return nil, "", nil, true
		}
	}
}

func (b *Broker) dequeueOrRegister(w *waiter) (*structs.Evaluation, string, error) {
	b.mu.Lock()
	defer b.unlock()
	e, token, err := b.dequeueLocked(w.schedulers)
	if e == nil && err == nil {
		b.waiters[w] = struct{}{}
	}
	return e, token, err
}

func (b *Broker) removeWaiter(w *waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waiters, w)
}
