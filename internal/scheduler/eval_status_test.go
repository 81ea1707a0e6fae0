package scheduler

import (
	"sort"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestServiceSched_JobRegister_PlacesCountWithNames(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 5; i++ {
		h.upsertNode(mockNode())
	}
	job, _ := h.register(mockJob("web", 4))

	allocs := h.liveAllocs(job)
	if len(allocs) != 4 {
		t.Fatalf("placed %d allocs, want 4", len(allocs))
	}
	var names []string
	for _, a := range allocs {
		names = append(names, a.Name)
		if a.NodeName == "" || a.Job == nil || a.AllocatedResources.Tasks["web"].CpuShares != 500 || a.Metrics == nil {
			t.Fatalf("alloc not filled in: %+v", a)
		}
		if a.DesiredStatus != structs.AllocDesiredStatusRun || a.ClientStatus != structs.AllocClientStatusPending {
			t.Fatalf("statuses %s/%s", a.DesiredStatus, a.ClientStatus)
		}
		if a.CreateTime != t0.UnixNano() {
			t.Fatalf("create time %d, want the injected clock", a.CreateTime)
		}
	}
	sort.Strings(names)
	want := []string{"web.web[0]", "web.web[1]", "web.web[2]", "web.web[3]"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("names %v, want %v", names, want)
	}
	e := h.lastEval()
	if e.Status != structs.EvalStatusComplete || e.QueuedAllocations["web"] != 0 || len(e.FailedTGAllocs) != 0 {
		t.Fatalf("eval %s queued=%v failed=%v", e.Status, e.QueuedAllocations, e.FailedTGAllocs)
	}
	if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Place != 4 {
		t.Fatalf("annotations %+v", du)
	}
	if len(h.created) != 0 {
		t.Fatalf("unexpected follow-up evals %v", h.created)
	}
}

func TestEvalStatus_SchedulingToBlocked_QueuedAllocs_SetsPointers(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockJob("big", 3)
	j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000 // two fit on the node
	_, eval := h.register(j)

	if len(h.created) != 1 {
		t.Fatalf("created %d evals, want one blocked eval", len(h.created))
	}
	b := h.created[0]
	if b.Status != structs.EvalStatusBlocked || b.TriggeredBy != structs.EvalTriggerQueuedAllocs || b.PreviousEval != eval.ID {
		t.Fatalf("blocked eval %+v", b)
	}
	if len(b.ClassEligibility) == 0 || !anyTrue(b.ClassEligibility) {
		t.Fatalf("class eligibility %v, want the node's class eligible", b.ClassEligibility)
	}
	e := h.lastEval()
	if e.Status != structs.EvalStatusComplete || e.BlockedEval != b.ID {
		t.Fatalf("eval status %s blocked=%q", e.Status, e.BlockedEval)
	}
	m := e.FailedTGAllocs["web"]
	if m == nil || m.DimensionExhausted["memory"] == 0 || e.QueuedAllocations["web"] != 1 {
		t.Fatalf("failed=%+v queued=%v", m, e.QueuedAllocations)
	}
}

func anyTrue(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

func TestEvalStatus_SchedulingToBlocked_ConstraintRecordsIneligibleClass(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockJob("web", 1)
	j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "="}}
	h.register(j)

	b := h.created[0]
	if len(b.ClassEligibility) != 1 || anyTrue(b.ClassEligibility) || b.EscapedComputedClass {
		t.Fatalf("class eligibility %v escaped=%v", b.ClassEligibility, b.EscapedComputedClass)
	}
	m := h.lastEval().FailedTGAllocs["web"]
	if m.ConstraintFiltered["${attr.kernel.name} = windows"] != 1 || m.NodesFiltered != 1 {
		t.Fatalf("metric %+v", m)
	}
}

func TestEvalStatus_BlockedEvalStillUnplaceable_IsReblocked(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockJob("big", 1)
	j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 100000
	h.register(j)
	blocked := h.created[0]

	h.process(blocked)
	if len(h.created) != 1 {
		t.Fatalf("a blocked eval must be reused, got %d created", len(h.created))
	}
	if len(h.reblock) != 1 || h.reblock[0].ID != blocked.ID || len(h.reblock[0].ClassEligibility) == 0 {
		t.Fatalf("reblocked %+v", h.reblock)
	}
}

func TestEvalStatus_BlockedToComplete_WhenCapacityAppears(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockJob("big", 2)
	j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 6000
	job, _ := h.register(j)
	blocked := h.created[0]

	h.upsertNode(mockNode())
	h.process(blocked)
	if got := len(h.liveAllocs(job)); got != 2 {
		t.Fatalf("%d allocs after unblock, want 2", got)
	}
	if e := h.lastEval(); e.ID != blocked.ID || e.Status != structs.EvalStatusComplete {
		t.Fatalf("last eval %s %s", e.ID, e.Status)
	}
}

func TestEvalStatus_SchedulingToFailed_MaxPlanAttempts_CreatesBlockedEval(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	h.rejectPlans = 100
	_, eval := h.register(mockJob("web", 1))

	if len(h.plans) != MaxServiceScheduleAttempts {
		t.Fatalf("%d plans submitted, want %d", len(h.plans), MaxServiceScheduleAttempts)
	}
	if len(h.created) != 1 {
		t.Fatalf("created %d evals", len(h.created))
	}
	b := h.created[0]
	if b.TriggeredBy != structs.EvalTriggerMaxPlans || b.Status != structs.EvalStatusBlocked || b.PreviousEval != eval.ID {
		t.Fatalf("blocked eval %+v", b)
	}
	e := h.lastEval()
	if e.Status != structs.EvalStatusFailed || e.BlockedEval != b.ID || e.StatusDescription != "maximum attempts reached (5)" {
		t.Fatalf("eval %s %q blocked=%q", e.Status, e.StatusDescription, e.BlockedEval)
	}
}

func TestEvalStatus_BatchMaxPlanAttemptsIsTwo(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	h.rejectPlans = 100
	h.register(mockBatchJob("b", 1))
	if len(h.plans) != MaxBatchScheduleAttempts || h.lastEval().Status != structs.EvalStatusFailed {
		t.Fatalf("%d plans, eval %s", len(h.plans), h.lastEval().Status)
	}
}

func TestEvalStatus_SchedulingToComplete_AfterPartialRejection(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	h.rejectPlans = 2
	job, _ := h.register(mockJob("web", 2))
	if len(h.plans) != 3 || len(h.liveAllocs(job)) != 2 || h.lastEval().Status != structs.EvalStatusComplete {
		t.Fatalf("plans=%d allocs=%d status=%s", len(h.plans), len(h.liveAllocs(job)), h.lastEval().Status)
	}
}

func TestEvalStatus_SchedulingToCanceled_SupersededJobVersion(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	job, first := h.register(mockJob("web", 1))

	v2 := destructiveUpdate(job)
	v2 = h.upsertJob(v2)
	h.process(mockEval(v2, structs.EvalTriggerJobRegister)) // the newer eval does the work

	stale := first.Copy()
	stale.ID, stale.Status = "stale", structs.EvalStatusPending
	h.process(stale)
	e := h.lastEval()
	if e.ID != "stale" || e.Status != structs.EvalStatusCanceled || !strings.Contains(e.StatusDescription, "superseded") {
		t.Fatalf("eval %s %s %q", e.ID, e.Status, e.StatusDescription)
	}
}

// docs/design.md: "pending -- if no-op --> canceled".
func TestEvalStatus_NoOpCurrentVersion_IsCanceled(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	job, _ := h.register(mockJob("web", 1))
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if e := h.lastEval(); len(h.plans) != plans || e.Status != structs.EvalStatusCanceled || e.StatusDescription != EvalDescNoOp {
		t.Fatalf("no-op submitted a plan or was not canceled: %s %q", e.Status, e.StatusDescription)
	}
}

// docs/design.md: "blocked -- if no-op --> canceled": a blocked eval unblocked
// after its allocs were placed by another eval has nothing left to do.
func TestEvalStatus_BlockedNoOp_IsCanceled(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	job, _ := h.register(mockJob("web", 1))
	blocked := mockEval(job, structs.EvalTriggerQueuedAllocs)
	blocked.Status = structs.EvalStatusBlocked
	h.process(blocked)
	if e := h.lastEval(); e.ID != blocked.ID || e.Status != structs.EvalStatusCanceled {
		t.Fatalf("blocked no-op ended %s %q", e.Status, e.StatusDescription)
	}
}

// The flapping example of docs/design.md: a node-update eval of a system job
// whose allocs are all in place is a no-op the scheduler cancels; a stale
// one (a newer version was registered after it) is canceled as
// superseded, like service and batch evals.
func TestEvalStatus_SystemNoOp_IsCanceled(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	job, _ := h.register(mockSystemJob("sys", false))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if e := h.lastEval(); e.Status != structs.EvalStatusCanceled || e.StatusDescription != EvalDescNoOp {
		t.Fatalf("system no-op ended %s %q", e.Status, e.StatusDescription)
	}
	stale := mockEval(job, structs.EvalTriggerNodeUpdate)
	v2 := job.Copy()
	v2.Meta = map[string]string{"v": "2"}
	newer, _ := h.register(v2)
	stale.ID = "stale-sys"
	h.process(stale)
	if e := h.lastEval(); e.ID != "stale-sys" || e.Status != structs.EvalStatusCanceled || !strings.Contains(e.StatusDescription, "superseded") {
		t.Fatalf("stale system eval ended %s %q (job v%d)", e.Status, e.StatusDescription, newer.Version)
	}
}

func TestEvalStatus_SchedulingToFailed_UnhandledTrigger(t *testing.T) {
	h := newHarness(t)
	job := h.upsertJob(mockJob("web", 1))
	h.process(mockEval(job, structs.EvalTriggerScheduled))
	e := h.lastEval()
	if e.Status != structs.EvalStatusFailed || !strings.Contains(e.StatusDescription, "cannot handle") {
		t.Fatalf("eval %s %q", e.Status, e.StatusDescription)
	}
}

func TestServiceSched_SameEvalSameState_SamePlan(t *testing.T) {
	run := func() []string {
		h := newHarness(t)
		nodeSeq = 0
		for i := 0; i < 50; i++ {
			h.upsertNode(mockNode())
		}
		job := h.upsertJob(mockJob("web", 10))
		e := mockEval(job, structs.EvalTriggerJobRegister)
		e.ID = "fixed"
		h.process(e)
		var nodes []string
		for _, a := range h.liveAllocs(job) {
			nodes = append(nodes, a.Name+"@"+a.NodeID)
		}
		sort.Strings(nodes)
		return nodes
	}
	a, b := run(), run()
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("plans differ:\n%v\n%v", a, b)
	}
}

// TestEvalStatus_BlockedEvalThenRejectedPlanStillCompletes checks that
// writing the blocked eval for a partial placement does not use up a plan
// attempt: a batch eval (two attempts) whose first plan is rejected still
// commits its placement on the second and completes.
func TestEvalStatus_BlockedEvalThenRejectedPlanStillCompletes(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockBatchJob("b", 2)
	j.TaskGroups[0].Tasks[0].Resources.CPU = 3000 // one fits the node
	h.rejectPlans = 1
	job, eval := h.register(j)
	if len(h.plans) != MaxBatchScheduleAttempts || len(h.liveAllocs(job)) != 1 {
		t.Fatalf("%d plans, %d allocs", len(h.plans), len(h.liveAllocs(job)))
	}
	if len(h.created) != 1 || h.created[0].Status != structs.EvalStatusBlocked || h.created[0].TriggeredBy == structs.EvalTriggerMaxPlans {
		t.Fatalf("created evals %+v, want one queued-allocs blocked eval", h.created)
	}
	e := h.lastEval()
	if e.ID != eval.ID || e.Status != structs.EvalStatusComplete || e.BlockedEval != h.created[0].ID {
		t.Fatalf("eval %s %s %q blocked=%q", e.ID, e.Status, e.StatusDescription, e.BlockedEval)
	}
}

// TestEvalStatus_FailedPlacementsCoalesce checks the failure metrics a
// partly placed group reports: the first failed placement's metric, with
// the group's other failed placements counted on it, not tried again.
func TestEvalStatus_FailedPlacementsCoalesce(t *testing.T) {
	h := newHarness(t)
	h.upsertNode(mockNode())
	j := mockJob("web", 4)
	j.TaskGroups[0].Tasks[0].Resources.CPU = 3000 // one fits the node
	job, _ := h.register(j)
	if got := len(h.liveAllocs(job)); got != 1 {
		t.Fatalf("%d allocs placed, want 1", got)
	}
	e := h.lastEval()
	m := e.FailedTGAllocs["web"]
	if m == nil || m.CoalescedFailures != 2 || m.NodesEvaluated != 1 {
		t.Fatalf("failed metrics %+v, want the first failure with 2 coalesced", m)
	}
	if e.QueuedAllocations["web"] != 3 {
		t.Fatalf("queued %v, want 3", e.QueuedAllocations)
	}
}
