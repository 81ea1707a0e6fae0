package planapply

import (
	"container/heap"
	"context"
	"sync"

	"github.com/drover-project/drover/internal/structs"
)

// PlanFuture is the submitter's handle on a queued plan.
type PlanFuture interface {
	// Wait blocks until the applier has answered, and returns its answer.
	Wait() (*structs.PlanResult, error)
	// Done is closed once the answer is available, so a submitter can
	// also give up on its own context.
	Done() <-chan struct{}
}

// PendingPlan is a plan waiting in (or taken from) the queue. It is also
// the plan's future: the applier answers it exactly once with respond.
type PendingPlan struct {
	Plan *structs.Plan

	seq uint64 // arrival order: breaks priority ties first-come first-served

	once   sync.Once
	done   chan struct{}
	result *structs.PlanResult
	err    error
}

func newPendingPlan(plan *structs.Plan, seq uint64) *PendingPlan {
	return &PendingPlan{Plan: plan, seq: seq, done: make(chan struct{})}
}

// Wait implements PlanFuture.
func (p *PendingPlan) Wait() (*structs.PlanResult, error) {
	<-p.done
	return p.result, p.err
}

// Done implements PlanFuture.
func (p *PendingPlan) Done() <-chan struct{} { return p.done }

// respond answers the submitter. Later answers are ignored, so a plan
// failed by SetEnabled(false) cannot be answered again by the applier.
func (p *PendingPlan) respond(result *structs.PlanResult, err error) {
	p.once.Do(func() {
		p.result, p.err = result, err
		close(p.done)
	})
}

// PlanQueue orders pending plans by priority (highest first), then by
// arrival. It accepts plans only while enabled, i.e. on the leader.
type PlanQueue struct {
	mu      sync.Mutex
	enabled bool
	plans   planHeap
	seq     uint64
	// wake is closed and replaced whenever a plan arrives, waking every
	// blocked Dequeue; a channel (unlike sync.Cond) composes with ctx.
	wake chan struct{}
}

// NewPlanQueue returns a disabled, empty queue.
func NewPlanQueue() *PlanQueue {
	return &PlanQueue{wake: make(chan struct{})}
}

// SetEnabled turns the queue on when this server becomes leader and off
// when it stops being leader. Disabling fails every queued plan with
// ErrNotLeader, since no one would ever apply them.
func (q *PlanQueue) SetEnabled(enabled bool) {
	q.mu.Lock()
	q.enabled = enabled
	var dropped []*PendingPlan
	if !enabled {
		dropped, q.plans = q.plans, nil
	}
	q.mu.Unlock()
	for _, p := range dropped {
		p.respond(nil, ErrNotLeader)
	}
}

// Enabled reports whether the queue accepts plans.
func (q *PlanQueue) Enabled() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.enabled
}

// Enqueue adds a plan and returns its future.
func (q *PlanQueue) Enqueue(plan *structs.Plan) (PlanFuture, error) {
	if plan == nil {
		return nil, ErrNilPlan
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.enabled {
		return nil, ErrNotLeader
	}
	q.seq++
	p := newPendingPlan(plan, q.seq)
	heap.Push(&q.plans, p)
	close(q.wake)
	q.wake = make(chan struct{})
	return p, nil
}

// Dequeue returns the next plan, blocking until one is queued or ctx ends.
// It always looks once first, so a done ctx makes it a non-blocking step.
// A disabled queue holds no plans, so Dequeue simply waits across
// leadership changes.
func (q *PlanQueue) Dequeue(ctx context.Context) (*PendingPlan, error) {
	for {
		q.mu.Lock()
		if len(q.plans) > 0 {
			p := heap.Pop(&q.plans).(*PendingPlan)
			q.mu.Unlock()
			return p, nil
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// tryDequeue pops the next plan, or returns nil if there is none.
func (q *PlanQueue) tryDequeue() *PendingPlan {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.plans) == 0 {
		return nil
	}
	return heap.Pop(&q.plans).(*PendingPlan)
}

// ready returns a channel that is closed once the queue holds a plan:
// already closed if it holds one now.
func (q *PlanQueue) ready() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.plans) > 0 {
		return closedChan
	}
	return q.wake
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Stats returns the number of queued plans.
func (q *PlanQueue) Stats() (depth int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.plans)
}

// planHeap implements heap.Interface: highest Plan.Priority first, then
// lowest arrival sequence.
type planHeap []*PendingPlan

func (h planHeap) Len() int { return len(h) }

func (h planHeap) Less(i, j int) bool {
	if pi, pj := h[i].Plan.Priority, h[j].Plan.Priority; pi != pj {
		return pi > pj
	}
	return h[i].seq < h[j].seq
}

func (h planHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *planHeap) Push(x any) { *h = append(*h, x.(*PendingPlan)) }

func (h *planHeap) Pop() any {
	old := *h
	n := len(old)
	p := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return p
}
