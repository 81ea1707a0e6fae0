package scheduler

import (
	"fmt"
	"net"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// t0 is the fake clock's time.
var t0 = time.Unix(1_700_000_000, 0).UTC()

// harness is a fake Planner over a real state store: accepted plans are
// applied to the store, so retries and later evals see them.
type harness struct {
	t       testing.TB
	mu      sync.Mutex
	store   *state.StateStore
	index   uint64
	now     time.Time
	plans   []*structs.Plan
	updated []*structs.Evaluation
	created []*structs.Evaluation
	reblock []*structs.Evaluation
	// rejectPlans rejects this many plans entirely before accepting.
	rejectPlans int
	// finishWithPlan accepts a plan's FinalEval as the plan applier does:
	// written with the plan, and the result says EvalFinished.
	finishWithPlan bool
	// pendingFinal is the FinalEval of the last plan accepted without it:
	// the scheduler's next write must be that very eval (checked for
	// every test, so each one also checks what plans carry).
	pendingFinal *structs.Evaluation
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	s, err := state.NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, store: s, index: 100, now: t0}
}

func (h *harness) next() uint64 { h.index++; return h.index }

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) SubmitPlan(p *structs.Plan) (*structs.PlanResult, State, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plans = append(h.plans, p)
	h.pendingFinal = nil
	if h.rejectPlans > 0 {
		h.rejectPlans--
		return &structs.PlanResult{RefreshIndex: h.index}, h.store.Snapshot(), nil
	}
	req := &structs.ApplyPlanResultsRequest{
		Job: p.Job, Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates,
		EvalID: p.EvalID, UpdatedAt: h.now.UnixNano(),
	}
	if h.finishWithPlan {
		req.FinalEval = p.FinalEval
	} else {
		h.pendingFinal = p.FinalEval
	}
	for _, allocs := range p.NodeAllocation {
		req.AllocsUpdated = append(req.AllocsUpdated, allocs...)
	}
	for _, allocs := range p.NodeUpdate {
		req.AllocsStopped = append(req.AllocsStopped, allocs...)
	}
	// Evictions as the plan applier commits them (its preemption evals
	// are left out: the tests look at the plan).
	for _, allocs := range p.NodePreemptions {
		req.AllocsPreempted = append(req.AllocsPreempted, allocs...)
	}
	idx := h.next()
	if err := h.store.UpsertPlanResults(idx, req); err != nil {
		return nil, nil, err
	}
	h.checkNodes()
	return &structs.PlanResult{
		NodeUpdate: p.NodeUpdate, NodeAllocation: p.NodeAllocation, NodePreemptions: p.NodePreemptions,
		Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates, AllocIndex: idx,
		EvalFinished: req.FinalEval != nil,
	}, nil, nil
}

// checkFinal fails the test when the scheduler's write after a fully
// committed plan is not the final eval that plan carried: a leader that
// wrote the carried eval instead would have stored something else, or
// lost this write.
func (h *harness) checkFinal(kind string, e *structs.Evaluation) {
	h.t.Helper()
	want := h.pendingFinal
	h.pendingFinal = nil
	switch {
	case want == nil:
	case kind != "update":
		h.t.Fatalf("%s eval %s after a fully committed plan that carried the final status", kind, e.ID)
	case !reflect.DeepEqual(want, e):
		h.t.Fatalf("final eval differs from the one the plan carried:\n got %+v\nwant %+v", e, want)
	}
}

// checkNodes asserts the invariants a plan applier guarantees: no node
// over-committed, no port claimed twice on a node.
func (h *harness) checkNodes() {
	nodes, err := h.store.Nodes(nil)
	h.must(err)
	for _, n := range nodes {
		allocs, err := h.store.AllocsByNodeTerminal(nil, n.ID, false)
		h.must(err)
		if ok, dim, _ := structs.AllocsFit(n, allocs); !ok {
			h.t.Fatalf("node %s over-committed on %s", n.ID, dim)
		}
		ports := map[string]string{}
		for _, a := range allocs {
			forEachAddrPort(a, nodeIP(n), func(ip string, p int) {
				k := net.JoinHostPort(ip, strconv.Itoa(p))
				if other, dup := ports[k]; dup {
					h.t.Fatalf("port %s on node %s claimed by %s and %s", k, n.ID, other, a.ID)
				}
				ports[k] = a.ID
			})
		}
	}
}

func (h *harness) UpdateEval(e *structs.Evaluation) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checkFinal("update", e)
	h.updated = append(h.updated, e)
	return h.store.UpsertEvals(h.next(), []*structs.Evaluation{e})
}

func (h *harness) CreateEval(e *structs.Evaluation) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checkFinal("create", e)
	h.created = append(h.created, e)
	return h.store.UpsertEvals(h.next(), []*structs.Evaluation{e})
}

func (h *harness) ReblockEval(e *structs.Evaluation) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checkFinal("reblock", e)
	h.reblock = append(h.reblock, e)
	return h.store.UpsertEvals(h.next(), []*structs.Evaluation{e})
}

// process runs the eval through the scheduler of its type.
func (h *harness) process(e *structs.Evaluation) {
	h.t.Helper()
	h.pendingFinal = nil
	f := Builtins(Deps{Now: func() time.Time { return h.now }})[e.Type]
	h.must(f(nil, h.store.Snapshot(), h).Process(e))
}

// lastPlan is the plan submitted last.
func (h *harness) lastPlan() *structs.Plan {
	h.t.Helper()
	if len(h.plans) == 0 {
		h.t.Fatal("no plan was submitted")
	}
	return h.plans[len(h.plans)-1]
}

// wantStops checks the plan's annotations stop n allocs of the group.
func wantStops(t *testing.T, p *structs.Plan, group string, n uint64) {
	t.Helper()
	if du := p.Annotations.DesiredTGUpdates[group]; du == nil || du.Stop != n {
		t.Fatalf("annotations of %s %+v, want %d stops", group, du, n)
	}
}

// lastEval is the final write of the processed eval.
func (h *harness) lastEval() *structs.Evaluation {
	h.t.Helper()
	if len(h.updated) == 0 {
		h.t.Fatal("eval was never updated")
	}
	return h.updated[len(h.updated)-1]
}

func (h *harness) upsertNode(n *structs.Node) *structs.Node {
	h.must(h.store.UpsertNode(h.next(), n))
	return n
}

func (h *harness) upsertJob(j *structs.Job) *structs.Job {
	h.must(h.store.UpsertJob(h.next(), h.now.UnixNano(), j))
	stored, err := h.store.JobByID(nil, j.Namespace, j.ID)
	h.must(err)
	return stored
}

func (h *harness) upsertAllocs(allocs ...*structs.Allocation) {
	h.must(h.store.UpsertAllocs(h.next(), allocs))
}

// liveAllocs are the job's allocs that are not terminal.
func (h *harness) liveAllocs(j *structs.Job) []*structs.Allocation {
	all, err := h.store.AllocsByJob(nil, j.Namespace, j.ID, true)
	h.must(err)
	var out []*structs.Allocation
	for _, a := range all {
		if !a.TerminalStatus() {
			out = append(out, a)
		}
	}
	return out
}

// setClient changes client-owned fields of a stored alloc.
func (h *harness) setClient(a *structs.Allocation, change func(*structs.Allocation)) {
	c := a.CopySkipJob()
	change(c)
	h.must(h.store.UpdateAllocsFromClient(h.next(), []*structs.Allocation{c}))
}

var nodeSeq int

func mockNode() *structs.Node {
	nodeSeq++
	id := fmt.Sprintf("node-%04d", nodeSeq)
	n := mock.Node(id)
	n.SecretID, n.Name = "s-"+id, id
	n.Attributes = map[string]string{"kernel.name": "linux", "os.version": "22.04", "unique.hostname": id}
	n.Meta = map[string]string{"rack": "r1"}
	n.NodeResources.DiskMB = 100 * 1024
	delete(n.Drivers, "docker")
	return n
}

func mockJob(id string, count int) *structs.Job {
	j := mock.Job(id)
	j.TaskGroups[0].Count = count
	return j
}

func mockBatchJob(id string, count int) *structs.Job {
	j := mockJob(id, count)
	j.Type = structs.JobTypeBatch
	j.TaskGroups[0].ReschedulePolicy = nil
	j.TaskGroups[0].RestartPolicy = nil
	j.Canonicalize()
	return j
}

var evalSeq int

// mockEval is mock.Eval of j's version (JobModifyIndex), numbered in order.
func mockEval(j *structs.Job, trigger string) *structs.Evaluation {
	evalSeq++
	e := mock.Eval(fmt.Sprintf("eval-%04d", evalSeq), j, trigger)
	e.JobModifyIndex = j.JobModifyIndex
	e.CreateTime, e.ModifyTime = t0.UnixNano(), t0.UnixNano()
	return e
}

// register stores the job and processes its job-register eval.
func (h *harness) register(j *structs.Job) (*structs.Job, *structs.Evaluation) {
	h.t.Helper()
	stored := h.upsertJob(j)
	e := mockEval(stored, structs.EvalTriggerJobRegister)
	h.must(h.store.UpsertEvals(h.next(), []*structs.Evaluation{e}))
	h.process(e)
	return stored, e
}

func ptr[T any](v T) *T { return &v }

// destructiveUpdate is job's next version with its first task's env
// changed: an update the scheduler must roll out by replacing allocs.
func destructiveUpdate(job *structs.Job) *structs.Job {
	v2 := job.Copy()
	v2.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "2"}
	return v2
}
