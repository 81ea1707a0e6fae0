package broker

import (
	"sort"

	"github.com/drover-project/drover/internal/structs"
)

// Enqueue hands the broker an eval to schedule. Evals it already tracks
// (by ID) are ignored, so the leader can restore from state while FSM
// notifications repeat. Terminal evals are ignored; blocked ones are
// accepted because the blocked tracker hands back unblocked evals whose
// stored status is still blocked. Ignored while disabled.
func (b *Broker) Enqueue(e *structs.Evaluation) {
	b.mu.Lock()
	defer b.unlock()
	b.enqueueNewLocked(e)
}

// EnqueueAll enqueues several evals, each with a token: a non-empty token
// means the eval was unblocked while a worker still holds it under that
// token. Enqueueing it now would deliver it twice, and ignoring it would
// lose the capacity change, so it is requeued once that delivery ends.
// Evals are processed in ready order, not map order, for determinism.
func (b *Broker) EnqueueAll(evals map[*structs.Evaluation]string) {
	sorted := make([]*structs.Evaluation, 0, len(evals))
	for e := range evals {
		sorted = append(sorted, e)
	}
	sort.Slice(sorted, func(i, j int) bool { return readyOrder(sorted[i], sorted[j]) })

	b.mu.Lock()
	defer b.unlock()
	for _, e := range sorted {
		b.enqueueWithTokenLocked(e, evals[e])
	}
}

func (b *Broker) enqueueWithTokenLocked(e *structs.Evaluation, token string) {
	if token != "" {
		if u, ok := b.unack[e.ID]; ok && u.token == token {
			b.requeue[token] = e
			return
		}
	}
	// Not outstanding under token: either gone (a plain enqueue) or
	// already queued again (ignored as a duplicate).
	b.enqueueNewLocked(e)
}

// enqueueNewLocked starts tracking e: held until WaitUntil, or enqueued.
func (b *Broker) enqueueNewLocked(e *structs.Evaluation) {
	if !b.enabled || e == nil || e.TerminalStatus() {
		return
	}
	if _, ok := b.deliveries[e.ID]; ok {
		return
	}
	b.deliveries[e.ID] = 0
	b.delayUntilLocked(e, e.WaitUntil)
}

// enqueueLocked makes a tracked eval ready in queue, unless another eval of
// its job holds the job's slot.
func (b *Broker) enqueueLocked(e *structs.Evaluation, queue string) {
	if !b.claimJobLocked(e) {
		b.noteLocked(e, ObservePending)
		return
	}
	b.ready.push(queue, e)
	b.noteLocked(e, ObservePending)
	b.wakeLocked(queue)
}
