package planapply

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

var t0 = time.Unix(1_700_000_000, 0).UTC()

// harness is a leader in miniature: a real state store, a fake raft that
// applies entries to it at increasing indexes, a fake broker's tokens.
type harness struct {
	t      testing.TB
	store  *state.StateStore
	raft   *fakeRaft
	tokens *fakeTokens
	clock  *clock.Manual
	queue  *PlanQueue
	app    *Applier
	cfg    Config // what app was built from
	ids    int
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	store, err := state.NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, store: store, clock: clock.NewManual(t0), queue: NewPlanQueue()}
	h.raft = &fakeRaft{store: store}
	h.tokens = &fakeTokens{held: map[string]string{}}
	h.queue.SetEnabled(true)
	h.cfg = Config{Queue: h.queue, Tokens: h.tokens, State: StoreSource{Store: store}, Raft: h.raft, Clock: h.clock, NewID: h.newID}
	h.app = NewApplier(h.cfg)
	return h
}

// reconfigure gives the harness a new applier built from its config as fn
// changes it (an applier's modes are fixed at construction).
func (h *harness) reconfigure(fn func(c *Config)) {
	fn(&h.cfg)
	h.app = NewApplier(h.cfg)
}

func (h *harness) newID() string {
	h.ids++
	return fmt.Sprintf("gen-%04d", h.ids)
}

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) upsertNode(n *structs.Node) {
	h.t.Helper()
	h.must(h.store.UpsertNode(h.raft.next(), n))
}
func (h *harness) upsertJob(j *structs.Job) {
	h.t.Helper()
	h.must(h.store.UpsertJob(h.raft.next(), 0, j))
}
func (h *harness) upsertAllocs(as ...*structs.Allocation) {
	h.t.Helper()
	h.must(h.store.UpsertAllocs(h.raft.next(), as))
}

// plan returns an empty plan for job whose eval is held by a worker.
func (h *harness) plan(evalID string, job *structs.Job) *structs.Plan {
	token := "token-" + evalID
	h.tokens.hold(evalID, token)
	return &structs.Plan{EvalID: evalID, EvalToken: token, Priority: job.Priority, Job: job}
}

// submit enqueues a plan, applies it synchronously, and returns the answer.
func (h *harness) submit(p *structs.Plan) (*structs.PlanResult, error) {
	h.t.Helper()
	f, err := h.queue.Enqueue(p)
	h.must(err)
	pending := tryDequeue(h.queue)
	if pending == nil {
		h.t.Fatal("queue empty after enqueue")
	}
	_ = h.app.ApplyOne(pending)
	return f.Wait()
}

func (h *harness) alloc(id string) *structs.Allocation {
	h.t.Helper()
	a, err := h.store.AllocByID(nil, id)
	h.must(err)
	return a
}

// fakeRaft applies each request straight to the store at the next index.
type fakeRaft struct {
	mu    sync.Mutex
	store *state.StateStore
	index uint64
	calls int
	reqs  []*structs.ApplyPlanResultsRequest
	fail  error
	// beforeCommit runs once, before the next entry is applied: a write
	// that lands between the plan's evaluation and its commit.
	beforeCommit func(index uint64)
}

func (r *fakeRaft) next() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.index++
	return r.index
}

func (r *fakeRaft) ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.fail != nil {
		return 0, r.fail
	}
	r.index++
	if hook := r.beforeCommit; hook != nil {
		r.beforeCommit = nil
		hook(r.index)
		r.index++
	}
	r.reqs = append(r.reqs, req)
	if err := r.store.UpsertPlanResults(r.index, req); err != nil {
		return 0, err
	}
	return r.index, nil
}

type fakeTokens struct {
	mu   sync.Mutex
	held map[string]string
}

func (f *fakeTokens) hold(evalID, token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[evalID] = token
}

func (f *fakeTokens) Outstanding(evalID string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.held[evalID]
	return t, ok
}

var errRaft = errors.New("raft: leadership lost")

// Fixtures. Nodes offer 4000 MHz, 4 cores, 8 GiB, 100 GB disk; port 22
// is reserved.

func mockNode(id string) *structs.Node {
	n := mock.Node(id)
	n.ReservedResources = &structs.NodeReservedResources{ReservedPorts: "22"}
	return n
}

func mockJob(id string, priority int) *structs.Job {
	j := mock.Job(id)
	j.Priority = priority
	return j
}

// mockAlloc is a running alloc of job on node using cpu MHz, mem MB and
// disk MB.
func mockAlloc(id string, job *structs.Job, nodeID string, cpu, mem, disk int64) *structs.Allocation {
	a := mock.Alloc(id, job, nodeID)
	a.AllocatedResources.Tasks["web"] = &structs.AllocatedTaskResources{CpuShares: cpu, MemoryMB: mem}
	a.AllocatedResources.Shared.DiskMB = disk
	return a
}

func withPort(a *structs.Allocation, port int) *structs.Allocation {
	a.AllocatedResources.Shared.Ports = append(a.AllocatedResources.Shared.Ports,
		structs.AllocatedPortMapping{Label: "http", Value: port})
	return a
}

func withCores(a *structs.Allocation, cores ...uint16) *structs.Allocation {
	a.AllocatedResources.Tasks["web"].ReservedCores = cores
	return a
}

func stopped(a *structs.Allocation) *structs.Allocation {
	c := a.Copy()
	c.DesiredStatus = structs.AllocDesiredStatusStop
	c.DesiredDescription = "alloc not needed"
	return c
}

func preempted(a *structs.Allocation, by string) *structs.Allocation {
	c := a.Copy()
	c.DesiredStatus = structs.AllocDesiredStatusEvict
	c.DesiredDescription = "preempted by alloc " + by
	c.PreemptedByAllocation = by
	return c
}

func addTo(m *map[string][]*structs.Allocation, as ...*structs.Allocation) {
	if *m == nil {
		*m = map[string][]*structs.Allocation{}
	}
	for _, a := range as {
		(*m)[a.NodeID] = append((*m)[a.NodeID], a)
	}
}

// tryDequeue is one non-blocking step: Dequeue with a done context, nil
// when the queue is empty.
func tryDequeue(q *PlanQueue) *PendingPlan {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, _ := q.Dequeue(ctx)
	return p
}
