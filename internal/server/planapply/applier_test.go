package planapply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// setupNodes registers ready nodes and a job.
func setupNodes(h *harness, job *structs.Job, nodes ...string) {
	h.upsertJob(job)
	for _, id := range nodes {
		h.upsertNode(mockNode(id))
	}
}

func TestApplier_PartialCommit(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1", "n2")
	h.upsertAllocs(mockAlloc("big", job, "n2", 3900, 100, 100))

	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n1", 500, 100, 100), mockAlloc("p2", job, "n2", 500, 100, 100))
	latest := h.store.LatestIndex()
	res, err := h.submit(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NodeAllocation["n1"]) != 1 || len(res.NodeAllocation["n2"]) != 0 {
		t.Fatalf("committed %v", res.NodeAllocation)
	}
	if !slices.Equal(res.RejectedNodes, []string{"n2"}) || res.RefreshIndex != latest {
		t.Fatalf("rejected %v refresh %d (want [n2] %d)", res.RejectedNodes, res.RefreshIndex, latest)
	}
	if res.AllocIndex <= latest {
		t.Fatalf("alloc index %d not after %d", res.AllocIndex, latest)
	}
	if a := h.alloc("p1"); a == nil || a.CreateIndex != res.AllocIndex || a.Job == nil {
		t.Fatalf("p1 not committed with its job: %+v", a)
	}
	if h.alloc("p2") != nil {
		t.Fatal("rejected p2 was committed")
	}
}

func TestApplier_StaleToken(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	for name, mutate := range map[string]func(*structs.Plan){
		"eval not outstanding": func(p *structs.Plan) { p.EvalID = "eval-unknown" },
		"token superseded":     func(p *structs.Plan) { p.EvalToken = "token-of-an-earlier-delivery" },
	} {
		t.Run(name, func(t *testing.T) {
			plan := h.plan("eval-1", job)
			addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n1", 100, 100, 100))
			mutate(plan)
			res, err := h.submit(plan)
			if !errors.Is(err, ErrStaleToken) || res != nil {
				t.Fatalf("got %v, %v; want ErrStaleToken", res, err)
			}
			if h.raft.calls != 0 || h.alloc("p1") != nil {
				t.Fatal("stale plan was committed")
			}
		})
	}
}

func TestApplier_NothingToCommit(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n1", 9000, 100, 100))
	res, err := h.submit(plan)
	if err != nil {
		t.Fatal(err)
	}
	if h.raft.calls != 0 || res.AllocIndex != 0 || res.RefreshIndex == 0 {
		t.Fatalf("raft calls %d, result %+v", h.raft.calls, res)
	}
}

func TestApplier_RaftErrorReachesSubmitter(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	h.raft.fail = errRaft
	plan := h.plan("eval-1", job)
	addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n1", 100, 100, 100))
	if _, err := h.submit(plan); !errors.Is(err, errRaft) {
		t.Fatalf("err %v, want %v", err, errRaft)
	}
}

// The raft entry carries only what the state store reads: stops are
// trimmed to their decision fields, and placements drop the plan's job,
// which the store attaches back.
func TestApplier_NormalizesRequest(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1")
	old := mockAlloc("old", job, "n1", 100, 100, 100)
	h.upsertAllocs(old)

	plan := h.plan("eval-1", job)
	stop := stopped(old)
	stop.ClientStatus = structs.AllocClientStatusLost
	stop.FollowupEvalID = "follow"
	addTo(&plan.NodeUpdate, stop)
	addTo(&plan.NodeAllocation, mockAlloc("new", job, "n1", 100, 100, 100))
	if _, err := h.submit(plan); err != nil {
		t.Fatal(err)
	}
	req := h.raft.reqs[0]
	want := &structs.Allocation{ID: "old", DesiredStatus: structs.AllocDesiredStatusStop,
		DesiredDescription: stop.DesiredDescription, ClientStatus: structs.AllocClientStatusLost, FollowupEvalID: "follow"}
	if len(req.AllocsStopped) != 1 || fmt.Sprintf("%+v", req.AllocsStopped[0]) != fmt.Sprintf("%+v", want) {
		t.Fatalf("stopped %+v", req.AllocsStopped)
	}
	if req.AllocsUpdated[0].Job != nil || plan.NodeAllocation["n1"][0].Job == nil {
		t.Fatal("placement's job not stripped from the entry, or stripped from the plan")
	}
	if req.EvalID != "eval-1" || req.Job != job || req.UpdatedAt != t0.UnixNano() {
		t.Fatalf("request %+v", req)
	}
	got := h.alloc("old")
	if got.DesiredStatus != structs.AllocDesiredStatusStop || got.ClientStatus != structs.AllocClientStatusLost ||
		got.FollowupEvalID != "follow" || got.ModifyTime != t0.UnixNano() {
		t.Fatalf("stored stop %+v", got)
	}
	if h.alloc("new").Job == nil {
		t.Fatal("stored placement has no job")
	}
}

// applying -> pending: the applier creates one pending eval per job whose
// allocs it preempted, triggered by preemption, pointing at no other eval.
func TestEvalStatus_ApplyingToPending_Preemption_NoPointers(t *testing.T) {
	h := newHarness(t)
	high := mockJob("high", 90)
	batch := mockJob("low-batch", 20)
	batch.Type = structs.JobTypeBatch
	svc := mockJob("low-svc", 30)
	setupNodes(h, high, "n1", "n2")
	h.upsertJob(batch)
	h.upsertJob(svc)
	b1 := mockAlloc("b1", batch, "n1", 2000, 100, 100)
	b2 := mockAlloc("b2", batch, "n2", 2000, 100, 100)
	s1 := mockAlloc("s1", svc, "n1", 2000, 100, 100)
	h.upsertAllocs(b1, b2, s1)

	plan := h.plan("eval-high", high)
	addTo(&plan.NodeAllocation, mockAlloc("h1", high, "n1", 3000, 100, 100), mockAlloc("h2", high, "n2", 3000, 100, 100))
	jobless := preempted(s1, "h1")
	jobless.Job = nil // the applier finds the job in state
	addTo(&plan.NodePreemptions, preempted(b1, "h1"), jobless, preempted(b2, "h2"))
	res, err := h.submit(plan)
	if err != nil {
		t.Fatal(err)
	}
	if full, _, _ := res.FullCommit(plan); !full {
		t.Fatalf("plan not fully committed: %+v", res)
	}
	evals := h.raft.reqs[0].PreemptionEvals
	if len(evals) != 2 {
		t.Fatalf("%d preemption evals, want one per job (2)", len(evals))
	}
	for _, job := range []*structs.Job{batch, svc} {
		e := findEval(evals, job.ID)
		stored, err := h.store.EvalByID(nil, e.ID)
		h.must(err)
		if stored == nil || stored.Status != structs.EvalStatusPending || stored.TriggeredBy != structs.EvalTriggerPreemption ||
			stored.Type != job.Type || stored.Priority != job.Priority || stored.Namespace != job.Namespace ||
			stored.PreviousEval != "" || stored.NextEval != "" || stored.BlockedEval != "" || stored.CreateTime != t0.UnixNano() {
			t.Fatalf("eval for %s: %+v", job.ID, stored)
		}
	}
	for _, id := range []string{"b1", "b2", "s1"} {
		a := h.alloc(id)
		if a.DesiredStatus != structs.AllocDesiredStatusEvict || a.PreemptedByAllocation == "" {
			t.Fatalf("%s not evicted: %+v", id, a)
		}
	}
}

func findEval(evals []*structs.Evaluation, jobID string) *structs.Evaluation {
	for _, e := range evals {
		if e.JobID == jobID {
			return e
		}
	}
	return &structs.Evaluation{}
}

// Two workers planned from the same snapshot onto one nearly full node:
// whichever plan the applier takes first wins, the other is refused with
// a refresh index that includes the winner's commit.
func TestPlanApply_TwoPlansSameFullNode_OneRejected(t *testing.T) {
	h := newHarness(t)
	job1, job2 := mockJob("one", 50), mockJob("two", 50)
	setupNodes(h, job1, "n1")
	h.upsertJob(job2)
	h.upsertAllocs(mockAlloc("existing", job1, "n1", 3000, 100, 100))

	p1 := h.plan("eval-1", job1)
	addTo(&p1.NodeAllocation, mockAlloc("w1", job1, "n1", 800, 100, 100))
	p2 := h.plan("eval-2", job2)
	addTo(&p2.NodeAllocation, mockAlloc("w2", job2, "n1", 800, 100, 100))
	f1, err := h.queue.Enqueue(p1)
	h.must(err)
	f2, err := h.queue.Enqueue(p2)
	h.must(err)
	for p := tryDequeue(h.queue); p != nil; p = tryDequeue(h.queue) {
		_ = h.app.ApplyOne(p)
	}
	r1, err1 := f1.Wait()
	r2, err2 := f2.Wait()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if full, _, _ := r1.FullCommit(p1); !full || r1.AllocIndex == 0 {
		t.Fatalf("first plan: %+v", r1)
	}
	if !slices.Equal(r2.RejectedNodes, []string{"n1"}) || r2.RefreshIndex < r1.AllocIndex || r2.AllocIndex != 0 {
		t.Fatalf("second plan: %+v (first committed at %d)", r2, r1.AllocIndex)
	}
	if h.alloc("w2") != nil {
		t.Fatal("second plan over-committed the node")
	}
}

// Run with many concurrent submitters never over-commits a node.
func TestApplier_RunConcurrentSubmitters(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	nodes := []string{"n1", "n2", "n3"}
	setupNodes(h, job, nodes...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.app.Run(ctx); close(done) }()

	submitSpread(t, h, job, nodes, 8, 10)
	cancel()
	<-done
	for _, id := range nodes {
		allocs, err := h.store.AllocsByNode(nil, id)
		h.must(err)
		node, err := h.store.NodeByID(nil, id)
		h.must(err)
		if ok, dim, used := structs.AllocsFit(node, allocs); !ok || used.CpuShares != 4000-4000%300 {
			t.Fatalf("node %s: fit %v (%s), used %+v", id, ok, dim, used)
		}
	}
}

func TestApplier_RunStopsOnCancel(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.app.Run(ctx); close(done) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}
