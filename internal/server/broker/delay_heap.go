package broker

import (
	"container/heap"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// delayedEval is an eval held until at: either its WaitUntil, or the end
// of its nack back-off.
type delayedEval struct {
	eval *structs.Evaluation
	at   time.Time
}

// delayHeap orders held evals by due time; equal times fall back to the
// ready order so releases are deterministic.
type delayHeap []delayedEval

func (h delayHeap) Len() int { return len(h) }
func (h delayHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return readyOrder(h[i].eval, h[j].eval)
}
func (h delayHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *delayHeap) Push(x any)   { *h = append(*h, x.(delayedEval)) }

func (h *delayHeap) Pop() any {
	old := *h
	n := len(old) - 1
	d := old[n]
	old[n] = delayedEval{}
	*h = old[:n]
	return d
}

func (h *delayHeap) push(d delayedEval) { heap.Push(h, d) }
func (h *delayHeap) pop() delayedEval   { return heap.Pop(h).(delayedEval) }

// next returns the earliest due time.
func (h delayHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}
