package broker

import "github.com/drover-project/drover/internal/structs"

// Ack ends a delivery successfully: the eval leaves the broker, its job's
// slot passes to the newest waiting eval (older ones become cancelable),
// and an eval requeued under this token is enqueued.
func (b *Broker) Ack(evalID, token string) error {
	b.mu.Lock()
	defer b.unlock()
	u, err := b.outstandingLocked(evalID, token)
	if err != nil {
		return err
	}
	b.ackLocked(u)
	return nil
}

func (b *Broker) ackLocked(u *unacked) {
	u.stopTimer()
	delete(b.unack, u.eval.ID)
	delete(b.deliveries, u.eval.ID)
	b.noteLocked(u.eval, ObserveAcked)
	b.releaseJobLocked(u.eval)
	if r := b.takeRequeueLocked(u.token); r != nil {
		b.enqueueNewLocked(r)
	}
}

// Nack ends a delivery unsuccessfully: the eval is retried after a delay,
// or moved to FailedQueue once it reached the delivery limit. Its job
// stays blocked for other evals meanwhile.
func (b *Broker) Nack(evalID, token string) error {
	b.mu.Lock()
	defer b.unlock()
	u, err := b.outstandingLocked(evalID, token)
	if err != nil {
		return err
	}
	b.nackLocked(u)
	return nil
}

func (b *Broker) nackLocked(u *unacked) {
	u.stopTimer()
	delete(b.unack, u.eval.ID)
	b.noteLocked(u.eval, ObserveNacked)

	e := u.eval
	other := b.takeRequeueLocked(u.token)
	if other != nil && other.ID == e.ID {
		// The requeued copy is the newer version of the same eval: retry
		// that one; the retry already covers what the requeue asked for.
		e, other = other, nil
	}
	n := b.deliveries[e.ID]
	if n >= b.cfg.DeliveryLimit {
		b.enqueueLocked(e, FailedQueue)
	} else {
		b.delayUntilLocked(e, b.clk.Now().Add(b.cfg.nackDelay(n)))
	}
	if other != nil {
		b.enqueueNewLocked(other)
	}
}

func (b *Broker) takeRequeueLocked(token string) *structs.Evaluation {
	r, ok := b.requeue[token]
	if !ok {
		return nil
	}
	delete(b.requeue, token)
	return r
}
