package broker

import (
	"context"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// Dequeue delivers the best ready eval among schedulers. When none is
// ready it blocks until one is, the broker is disabled (ErrNotEnabled), or
// ctx is done (ctx.Err()). It always tries once first, so a done ctx makes
// it a non-blocking step (the simulator's and the tests'). The eval must
// not be modified (copy it first); the token identifies this delivery for
// Ack, Nack and OutstandingReset.
func (b *Broker) Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, error) {
	e, token, err, stopped := b.wait(schedulers, ctx.Done())
	if stopped {
		return nil, "", ctx.Err()
	}
	return e, token, err
}

func (b *Broker) dequeueLocked(schedulers []string) (*structs.Evaluation, string, error) {
	if !b.enabled {
		return nil, "", ErrNotEnabled
	}
	if b.paused {
		// As if nothing were ready, for the workers: they wait. The
		// leader still reaps evals a nack took past the delivery limit.
		if !slices.Contains(schedulers, FailedQueue) {
			return nil, "", nil
		}
		schedulers = []string{FailedQueue}
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
