package broker

import "github.com/drover-project/drover/internal/structs"

// readyQueues holds the evals that can be dequeued now, one priority heap
// per scheduler type (plus FailedQueue).
type readyQueues map[string]*evalHeap

func (r readyQueues) push(queue string, e *structs.Evaluation) {
	h, ok := r[queue]
	if !ok {
		h = newEvalHeap(readyOrder)
		r[queue] = h
	}
	h.push(e)
}

// best returns the queue, among schedulers, whose head should be dequeued
// next. Heads are compared with the same total order as inside a queue
// (priority, then create index, then ID), so the choice is deterministic
// and independent of the order of schedulers. (Nomad picks randomly among
// equal-priority types; we trade that for reproducible simulations.)
func (r readyQueues) best(schedulers []string) (string, bool) {
	var bestQ string
	var bestE *structs.Evaluation
	for _, s := range schedulers {
		h, ok := r[s]
		if !ok {
			continue
		}
		if head := h.peek(); head != nil && (bestE == nil || readyOrder(head, bestE)) {
			bestQ, bestE = s, head
		}
	}
	return bestQ, bestE != nil
}

func (r readyQueues) pop(queue string) *structs.Evaluation {
	// Empty heaps stay: there are only a handful of scheduler types, and
	// reusing them saves an allocation per enqueue on an idle queue.
	return r[queue].pop()
}
