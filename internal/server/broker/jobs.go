package broker

import "github.com/drover-project/drover/internal/structs"

// jobKey identifies a job across namespaces.
type jobKey struct{ namespace, jobID string }

func keyOf(e *structs.Evaluation) jobKey { return jobKey{e.Namespace, e.JobID} }

// serialized reports whether the one-eval-per-job rule applies. Evals
// without a job (none today, but e.g. future core evals) run freely.
func serialized(e *structs.Evaluation) bool { return e.JobID != "" }

// claimJobLocked gives e its job's slot, or parks e behind the eval that
// holds it: two evals of one job scheduled at once would only conflict in
// the plan applier.
func (b *Broker) claimJobLocked(e *structs.Evaluation) bool {
	if !serialized(e) {
		return true
	}
	k := keyOf(e)
	if holder, ok := b.jobs[k]; ok && holder != e.ID {
		h, ok := b.pending[k]
		if !ok {
			h = newEvalHeap(newestFirst)
			b.pending[k] = h
		}
		h.push(e)
		return false
	}
	b.jobs[k] = e.ID
	return true
}

// releaseJobLocked frees the slot e held once e is done (acked). The newest
// waiting eval is enqueued; the older ones are superseded, since the newest
// one schedules against the job's latest state anyway, and go to the
// cancelable list for the leader to cancel in one raft write.
func (b *Broker) releaseJobLocked(e *structs.Evaluation) {
	k := keyOf(e)
	if !serialized(e) || b.jobs[k] != e.ID {
		return
	}
	delete(b.jobs, k)
	h, ok := b.pending[k]
	if !ok {
		return
	}
	delete(b.pending, k)
	next := h.pop()
	for h.Len() > 0 {
		old := h.pop()
		b.cancelable = append(b.cancelable, old)
		b.noteLocked(old, ObserveCancelable)
	}
	b.enqueueLocked(next, next.Type)
}
