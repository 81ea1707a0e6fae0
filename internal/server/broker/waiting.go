package broker

// Waiting reports whether the job has an eval the broker will hand to a
// worker later with no clock passing: one parked behind the job's
// in-flight eval (the newest of them will run once that one is acked) or
// its ready eval. A worker snapshots state only after dequeuing, so such an
// eval will see anything committed before it is dequeued: a node update
// can rely on it instead of writing one more eval for the job.
func (b *Broker) Waiting(namespace, jobID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.enabled {
		return false
	}
	k := jobKey{namespace, jobID}
	if h, ok := b.pending[k]; ok && h.Len() > 0 {
		return true
	}
	id, ok := b.jobs[k]
	if !ok {
		return false
	}
	for _, h := range b.ready {
		for _, e := range h.evals {
			if e.ID == id {
				return true
			}
		}
	}
	return false // in flight, or held by a nack delay
}
