package insight

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

var t0 = time.Unix(1_700_000_000, 0).UTC()

var testDeps = Deps{Now: func() time.Time { return t0 }, Seed: 7}

// cluster is a real state store the tests fill, and the real schedulers
// run against (commit applies their plans as the plan applier would).
type cluster struct {
	t     testing.TB
	store *state.StateStore
	index uint64
}

func newCluster(t testing.TB) *cluster {
	s, err := state.NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, store: s, index: 100}
}

func (c *cluster) next() uint64 { c.index++; return c.index }

func (c *cluster) must(err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatal(err)
	}
}

// node adds a node named name; change edits it first.
func (c *cluster) node(name string, change func(*structs.Node)) *structs.Node {
	n := mock.Node(fmt.Sprintf("%08d-0000-4000-8000-%012d", c.index, c.index))
	n.Name = name
	if change != nil {
		change(n)
	}
	n.ComputedClass = scheduler.ComputeClass(n)
	c.must(c.store.UpsertNode(c.next(), n))
	return n
}

func (c *cluster) job(j *structs.Job) *structs.Job {
	if j.Namespace == "" {
		j.Namespace = structs.DefaultNamespace
	}
	j.Canonicalize()
	c.must(c.store.UpsertJob(c.next(), t0.UnixNano(), j))
	stored, err := c.store.JobByID(nil, j.Namespace, j.ID)
	c.must(err)
	return stored
}

// place runs the job's real scheduler on the store and commits its plans;
// it returns the final eval (FailedTGAllocs says what stayed unplaced).
func (c *cluster) place(job *structs.Job) *structs.Evaluation {
	c.t.Helper()
	e := mock.Eval(fmt.Sprintf("eval-%d", c.next()), job, structs.EvalTriggerJobRegister)
	p := &storePlanner{c: c}
	f := scheduler.Builtins(scheduler.Deps{Now: testDeps.Now, NewID: newIDs(1, e.ID).next})[job.Type]
	c.must(f(quiet, c.store.Snapshot(), p).Process(e))
	return p.final
}

// running marks every pending alloc running (a client started it).
func (c *cluster) running() {
	snap := c.store.Snapshot()
	nodes, err := snap.Nodes(nil)
	c.must(err)
	var up []*structs.Allocation
	for _, n := range nodes {
		allocs, err := snap.AllocsByNode(nil, n.ID)
		c.must(err)
		for _, a := range allocs {
			if a.ClientStatus == structs.AllocClientStatusPending && !a.ServerTerminalStatus() {
				a = a.Copy()
				a.ClientStatus = structs.AllocClientStatusRunning
				up = append(up, a)
			}
		}
	}
	if len(up) > 0 {
		c.must(c.store.UpsertAllocs(c.next(), up))
	}
}

type storePlanner struct {
	c     *cluster
	final *structs.Evaluation
}

func (p *storePlanner) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	req := &structs.ApplyPlanResultsRequest{Job: plan.Job, Deployment: plan.Deployment, DeploymentUpdates: plan.DeploymentUpdates, EvalID: plan.EvalID, UpdatedAt: t0.UnixNano()}
	for _, allocs := range plan.NodeAllocation {
		req.AllocsUpdated = append(req.AllocsUpdated, allocs...)
	}
	for _, allocs := range plan.NodeUpdate {
		req.AllocsStopped = append(req.AllocsStopped, allocs...)
	}
	for _, allocs := range plan.NodePreemptions {
		req.AllocsPreempted = append(req.AllocsPreempted, allocs...)
	}
	idx := p.c.next()
	if err := p.c.store.UpsertPlanResults(idx, req); err != nil {
		return nil, nil, err
	}
	return &structs.PlanResult{NodeUpdate: plan.NodeUpdate, NodeAllocation: plan.NodeAllocation, NodePreemptions: plan.NodePreemptions,
		Deployment: plan.Deployment, DeploymentUpdates: plan.DeploymentUpdates, AllocIndex: idx}, nil, nil
}
func (p *storePlanner) UpdateEval(e *structs.Evaluation) error  { p.final = e; return nil }
func (p *storePlanner) CreateEval(e *structs.Evaluation) error  { return nil }
func (p *storePlanner) ReblockEval(e *structs.Evaluation) error { p.final = e; return nil }

// svc is a service job with one group "g" of count tasks asking cpu MHz
// and mem MB.
func svc(id string, count, cpu, mem int) *structs.Job {
	j := mock.JobSpec(id)
	j.TaskGroups[0].Name = "g"
	j.TaskGroups[0].Count = count
	j.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: cpu, MemoryMB: mem}
	return j
}

func unplacedOf(e *structs.Evaluation, group string) int {
	if e == nil || e.FailedTGAllocs[group] == nil {
		return 0
	}
	return e.FailedTGAllocs[group].CoalescedFailures + 1
}

func contains(t *testing.T, what string, list []string, want string) {
	t.Helper()
	for _, s := range list {
		if strings.Contains(s, want) {
			return
		}
	}
	t.Fatalf("%s: no entry contains %q:\n  %s", what, want, strings.Join(list, "\n  "))
}
