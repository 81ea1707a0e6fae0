package broker

import (
	"container/heap"

	"github.com/drover-project/drover/internal/structs"
)

// evalHeap is a container/heap of evals under a given order. It backs both
// the ready queues and the per-job pending sets, which differ only in order.
type evalHeap struct {
	evals []*structs.Evaluation
	less  func(a, b *structs.Evaluation) bool
}

func newEvalHeap(less func(a, b *structs.Evaluation) bool) *evalHeap {
	return &evalHeap{less: less}
}

func (h *evalHeap) Len() int           { return len(h.evals) }
func (h *evalHeap) Less(i, j int) bool { return h.less(h.evals[i], h.evals[j]) }
func (h *evalHeap) Swap(i, j int)      { h.evals[i], h.evals[j] = h.evals[j], h.evals[i] }
func (h *evalHeap) Push(x any)         { h.evals = append(h.evals, x.(*structs.Evaluation)) }

func (h *evalHeap) Pop() any {
	n := len(h.evals) - 1
	e := h.evals[n]
	h.evals[n] = nil // let the eval be collected once it leaves the broker
	h.evals = h.evals[:n]
	return e
}

func (h *evalHeap) push(e *structs.Evaluation) { heap.Push(h, e) }
func (h *evalHeap) pop() *structs.Evaluation   { return heap.Pop(h).(*structs.Evaluation) }

func (h *evalHeap) peek() *structs.Evaluation {
	if len(h.evals) == 0 {
		return nil
	}
	return h.evals[0]
}

// readyOrder schedules urgent work first and, within a priority, the
// oldest first (FIFO); the ID makes ties deterministic.
func readyOrder(a, b *structs.Evaluation) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.CreateIndex != b.CreateIndex {
		return a.CreateIndex < b.CreateIndex
	}
	return a.ID < b.ID
}

// newestFirst orders a job's waiting evals so the one reflecting the latest
// state is on top: it is the one worth scheduling, the rest are superseded.
func newestFirst(a, b *structs.Evaluation) bool {
	if a.ModifyIndex != b.ModifyIndex {
		return a.ModifyIndex > b.ModifyIndex
	}
	if a.CreateIndex != b.CreateIndex {
		return a.CreateIndex > b.CreateIndex
	}
	return a.ID < b.ID
}
