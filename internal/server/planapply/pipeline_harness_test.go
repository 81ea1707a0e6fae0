package planapply

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// useRaft gives the harness a new applier committing through r (which
// commits into the harness's store through h.raft).
func (h *harness) useRaft(r Raft) {
	h.reconfigure(func(c *Config) { c.Raft = r })
}

// step runs fn on the applier as one of its exclusive steps.
func (h *harness) step(fn func(a *Applier, ctx context.Context)) {
	h.app.mu.Lock()
	defer h.app.mu.Unlock()
	fn(h.app, context.Background())
}

// enqueue queues a plan and takes it off the queue again, for steps.
func (h *harness) enqueue(p *structs.Plan) *PendingPlan {
	h.t.Helper()
	_, err := h.queue.Enqueue(p)
	h.must(err)
	pending := tryDequeue(h.queue)
	if pending == nil {
		h.t.Fatal("queue empty after enqueue")
	}
	return pending
}

// gatedRaft proposes entries without committing them: the test commits or
// fails each, oldest first, like a raft log whose disk write it holds.
type gatedRaft struct {
	fake    *fakeRaft
	mu      sync.Mutex
	pending []*gatedEntry
}

type gatedEntry struct {
	req   *structs.ApplyPlanResultsRequest
	done  chan struct{}
	index uint64
	err   error
}

func (e *gatedEntry) Wait() (uint64, error) {
	<-e.done
	return e.index, e.err
}

func (g *gatedRaft) StartPlanResults(req *structs.ApplyPlanResultsRequest) CommitFuture {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := &gatedEntry{req: req, done: make(chan struct{})}
	g.pending = append(g.pending, e)
	return e
}

func (g *gatedRaft) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	panic("the pipeline must propose asynchronously")
}

func (g *gatedRaft) proposed() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending)
}

func (g *gatedRaft) next(t testing.TB) *gatedEntry {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) == 0 {
		t.Fatal("no entry proposed")
	}
	e := g.pending[0]
	g.pending = g.pending[1:]
	return e
}

// commitNext commits the oldest proposed entry into the store.
func (g *gatedRaft) commitNext(t testing.TB) uint64 {
	e := g.next(t)
	e.index, e.err = g.fake.ApplyPlanResults(e.req)
	close(e.done)
	return e.index
}

// failNext fails the oldest proposed entry; nothing of it is committed.
func (g *gatedRaft) failNext(t testing.TB, err error) {
	e := g.next(t)
	e.err = err
	close(e.done)
}

// latencyRaft commits like a raft log whose every disk write takes
// latency: entries proposed while a write is in progress go into the next
// write together (group commit), in order.
type latencyRaft struct {
	fake    *fakeRaft
	latency time.Duration
	mu      sync.Mutex
	queue   []*gatedEntry
	wake    chan struct{}
	stop    chan struct{}
}

func newLatencyRaft(fake *fakeRaft, latency time.Duration) *latencyRaft {
	r := &latencyRaft{fake: fake, latency: latency, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	go r.loop()
	return r
}

func (r *latencyRaft) StartPlanResults(req *structs.ApplyPlanResultsRequest) CommitFuture {
	e := &gatedEntry{req: req, done: make(chan struct{})}
	r.mu.Lock()
	r.queue = append(r.queue, e)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return e
}

func (r *latencyRaft) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	return r.StartPlanResults(req).Wait()
}

func (r *latencyRaft) loop() {
	for {
		select {
		case <-r.stop:
			return
		case <-r.wake:
		}
		r.mu.Lock()
		batch := r.queue
		r.queue = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			continue
		}
		time.Sleep(r.latency) // real time: the disk write's latency is what groups the commits
		for _, e := range batch {
			e.index, e.err = r.fake.ApplyPlanResults(e.req)
			close(e.done)
		}
	}
}

func (r *latencyRaft) close() { close(r.stop) }

// runApplier runs h.app.Run until the returned stop is called.
// submitSpread has workers submitters each send perWorker one-alloc
// plans (300 MHz) for job, spread over nodes, and waits for every answer.
func submitSpread(t *testing.T, h *harness, job *structs.Job, nodes []string, workers, perWorker int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				evalID := fmt.Sprintf("eval-%d-%d", w, i)
				h.tokens.hold(evalID, "tok")
				plan := &structs.Plan{EvalID: evalID, EvalToken: "tok", Priority: 50, Job: job}
				addTo(&plan.NodeAllocation, mockAlloc(evalID, job, nodes[(w+i)%len(nodes)], 300, 100, 100))
				f, err := h.queue.Enqueue(plan)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := f.Wait(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func runApplier(h *harness) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.app.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func answered(f PlanFuture) bool {
	select {
	case <-f.Done():
		return true
	default:
		return false
	}
}
