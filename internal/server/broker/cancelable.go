package broker

import "github.com/drover-project/drover/internal/structs"

// Cancelable pops up to max superseded evals (all of them when max <= 0),
// oldest supersession first, for the leader to cancel in one raft write.
// Once popped they are no longer tracked, so a later Enqueue of the same
// eval (still pending in state) is accepted again.
func (b *Broker) Cancelable(max int) []*structs.Evaluation {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.cancelable)
	if max > 0 && max < n {
		n = max
	}
	if n == 0 {
		return nil
	}
	out := make([]*structs.Evaluation, n)
	copy(out, b.cancelable)
	clear(b.cancelable[:n])
	b.cancelable = b.cancelable[n:]
	for _, e := range out {
		delete(b.deliveries, e.ID)
	}
	return out
}
