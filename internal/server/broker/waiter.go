package broker

import "slices"

// waiter is a blocked Dequeue call. Its wake channel has room for one
// signal, so signalling never blocks and repeated signals coalesce.
type waiter struct {
	schedulers []string
	wake       chan struct{}
}

func newWaiter(schedulers []string) *waiter {
	return &waiter{schedulers: schedulers, wake: make(chan struct{}, 1)}
}

func (w *waiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// wakeLocked signals every waiter interested in queue. Waking all of them
// (at most one per worker) rather than one keeps the bookkeeping trivially
// free of lost wakeups: a waiter that loses the race simply waits again.
func (b *Broker) wakeLocked(queue string) {
	for w := range b.waiters {
		if slices.Contains(w.schedulers, queue) {
			w.signal()
		}
	}
}

// wakeAllLocked signals every waiter, e.g. so they see the broker disabled.
func (b *Broker) wakeAllLocked() {
	for w := range b.waiters {
		w.signal()
	}
}
