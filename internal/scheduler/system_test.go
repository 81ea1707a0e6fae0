package scheduler

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

func mockSystemJob(id string, sysbatch bool) *structs.Job {
	j := mockJob(id, 1)
	j.Type = structs.JobTypeSystem
	if sysbatch {
		j.Type = structs.JobTypeSysBatch
	}
	j.TaskGroups[0].ReschedulePolicy = nil
	j.Canonicalize()
	return j
}

func TestSystemSched_OneAllocPerFeasibleNode(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 3)
	windows := mockNode()
	windows.Attributes["kernel.name"] = "windows"
	h.upsertNode(windows)
	j := mockSystemJob("sys", false)
	j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
	job, _ := h.register(j)

	perNode := map[string]int{}
	for _, a := range h.liveAllocs(job) {
		perNode[a.NodeID]++
	}
	if len(perNode) != 3 || perNode[windows.ID] != 0 {
		t.Fatalf("per node %v", perNode)
	}
	for _, n := range ns {
		if perNode[n.ID] != 1 {
			t.Fatalf("node %s has %d", n.ID, perNode[n.ID])
		}
	}
	if e := h.lastEval(); e.Status != structs.EvalStatusComplete || len(e.FailedTGAllocs) != 0 || len(h.created) != 0 {
		t.Fatalf("eval %s failed=%v created=%d", e.Status, e.FailedTGAllocs, len(h.created))
	}
}

func TestSystemSched_NewNodeGetsAlloc(t *testing.T) {
	h := newHarness(t)
	nodes(h, 2)
	job, _ := h.register(mockSystemJob("sys", false))
	n := h.upsertNode(mockNode())
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	placed, _ := planned(h.lastPlan())
	if len(placed) != 1 || placed[0].NodeID != n.ID || len(h.liveAllocs(job)) != 3 {
		t.Fatalf("placed %v", placed)
	}
}

func TestSystemSched_StopsOnIneligibleNode(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job, _ := h.register(mockSystemJob("sys", false))
	h.must(h.store.UpdateNodeEligibility(h.next(), ns[0].ID, structs.NodeSchedulingIneligible, t0.Unix(), nil))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	_, stopped := planned(h.lastPlan())
	if len(stopped) != 1 || stopped[0].NodeID != ns[0].ID || stopped[0].DesiredDescription != allocNodeTainted {
		t.Fatalf("stopped %v", stopped)
	}
}

func TestSystemSched_DownNodeAllocMarkedLost(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job, _ := h.register(mockSystemJob("sys", false))
	h.must(h.store.UpdateNodeStatus(h.next(), ns[1].ID, structs.NodeStatusDown, t0.Unix(), nil))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	_, stopped := planned(h.lastPlan())
	if len(stopped) != 1 || stopped[0].ClientStatus != structs.AllocClientStatusLost {
		t.Fatalf("stopped %v", stopped)
	}
}

func TestEvalStatus_SchedulingToPending_SystemRollingUpdate_SetsPointers(t *testing.T) {
	h := newHarness(t)
	nodes(h, 5)
	j := mockSystemJob("sys", false)
	job, _ := h.register(j)

	v2 := job.Copy()
	v2.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/v2"}
	v2.TaskGroups[0].Update = &structs.UpdateStrategy{MaxParallel: 2, Stagger: 30 * time.Second}
	v2 = h.upsertJob(v2)
	e := mockEval(v2, structs.EvalTriggerJobRegister)
	h.process(e)

	_, stopped := planned(h.lastPlan())
	if len(stopped) != 2 {
		t.Fatalf("stagger step replaced %d, want 2", len(stopped))
	}
	if len(h.created) != 1 {
		t.Fatalf("created %d evals", len(h.created))
	}
	next := h.created[0]
	if next.TriggeredBy != structs.EvalTriggerRollingUpdate || next.PreviousEval != e.ID || next.Status != structs.EvalStatusPending || !next.WaitUntil.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("rolling eval %+v", next)
	}
	if last := h.lastEval(); last.NextEval != next.ID || last.Status != structs.EvalStatusComplete {
		t.Fatalf("eval next=%q status=%s", last.NextEval, last.Status)
	}
	if du := h.lastPlan().Annotations.DesiredTGUpdates["web"]; du.DestructiveUpdate != 2 || du.Ignore != 3 {
		t.Fatalf("annotations %+v", du)
	}
}

func TestSysBatchSched_CompletedAllocsNotRerun(t *testing.T) {
	h := newHarness(t)
	nodes(h, 2)
	job, _ := h.register(mockSystemJob("sb", true))
	for _, a := range h.liveAllocs(job) {
		h.setClient(a, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusComplete })
	}
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if len(h.plans) != plans {
		t.Fatalf("sysbatch re-ran completed allocs: %v", h.lastPlan().NodeAllocation)
	}
}

func TestSystemSched_FullNodeCreatesNodeSpecificBlockedEval(t *testing.T) {
	h := newHarness(t)
	small := mockNode()
	small.NodeResources.MemoryMB = 100
	h.upsertNode(small)
	nodes(h, 1)
	_, e := h.register(mockSystemJob("sys", false))
	if len(h.created) != 1 {
		t.Fatalf("created %d", len(h.created))
	}
	b := h.created[0]
	if b.Status != structs.EvalStatusBlocked || b.NodeID != small.ID || b.PreviousEval != e.ID {
		t.Fatalf("blocked %+v", b)
	}
	last := h.lastEval()
	if last.BlockedEval != b.ID || last.FailedTGAllocs["web"].DimensionExhausted["memory"] != 1 || last.QueuedAllocations["web"] != 1 {
		t.Fatalf("eval %+v", last)
	}
}

func TestSystemSched_JobStoppedStopsAll(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	job, _ := h.register(mockSystemJob("sys", false))
	stop := job.Copy()
	stop.Stop = true
	stop = h.upsertJob(stop)
	h.process(mockEval(stop, structs.EvalTriggerJobDeregister))
	if live := h.liveAllocs(job); len(live) != 0 {
		t.Fatalf("%d live", len(live))
	}
}

// TestSystemSched_RollingEvalThenRejectedPlansStillCompletes checks that
// writing the next stagger step's eval does not use up a plan attempt:
// with all but the last attempt's plan rejected, the step still commits.
func TestSystemSched_RollingEvalThenRejectedPlansStillCompletes(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	job, _ := h.register(mockSystemJob("sys", false))
	v2 := job.Copy()
	v2.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/v2"}
	v2.TaskGroups[0].Update = &structs.UpdateStrategy{MaxParallel: 1, Stagger: 30 * time.Second}
	v2 = h.upsertJob(v2)
	plans := len(h.plans)
	h.rejectPlans = MaxSystemScheduleAttempts - 1
	h.process(mockEval(v2, structs.EvalTriggerJobRegister))
	if got := len(h.plans) - plans; got != MaxSystemScheduleAttempts {
		t.Fatalf("%d plans, want %d", got, MaxSystemScheduleAttempts)
	}
	if len(h.created) != 1 || h.created[0].TriggeredBy != structs.EvalTriggerRollingUpdate {
		t.Fatalf("created %+v, want one rolling-update eval", h.created)
	}
	if e := h.lastEval(); e.Status != structs.EvalStatusComplete || e.NextEval != h.created[0].ID {
		t.Fatalf("eval %s %q next=%q", e.Status, e.StatusDescription, e.NextEval)
	}
}

// TestSystemSched_StopAnnotations checks the stops a system job's plan
// counts: all allocs of a stopped job, the allocs on a tainted node, those
// of a removed group, and an alloc whose node is gone from the state.
func TestSystemSched_StopAnnotations(t *testing.T) {
	t.Run("job stopped", func(t *testing.T) {
		h := newHarness(t)
		nodes(h, 3)
		job, _ := h.register(mockSystemJob("sys", false))
		stop := job.Copy()
		stop.Stop = true
		stop = h.upsertJob(stop)
		h.process(mockEval(stop, structs.EvalTriggerJobDeregister))
		wantStops(t, h.lastPlan(), "web", 3)
	})
	t.Run("tainted node", func(t *testing.T) {
		h := newHarness(t)
		ns := nodes(h, 2)
		job, _ := h.register(mockSystemJob("sys", false))
		h.must(h.store.UpdateNodeEligibility(h.next(), ns[0].ID, structs.NodeSchedulingIneligible, t0.Unix(), nil))
		h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
		wantStops(t, h.lastPlan(), "web", 1)
	})
	t.Run("group removed", func(t *testing.T) {
		h := newHarness(t)
		nodes(h, 2)
		job, _ := h.register(mockSystemJob("sys", false))
		v2 := job.Copy()
		v2.TaskGroups[0].Name = "api"
		h.register(v2)
		p := h.lastPlan()
		placed, stopped := planned(p)
		if len(stopped) != 2 || len(placed) != 2 {
			t.Fatalf("placed %d stopped %d, want the 2 web allocs replaced by api", len(placed), len(stopped))
		}
		for _, a := range stopped {
			if a.TaskGroup != "web" || a.DesiredDescription != allocNotNeeded {
				t.Fatalf("stopped %s (%q)", a.Name, a.DesiredDescription)
			}
		}
		wantStops(t, p, "web", 2)
	})
	t.Run("node gone", func(t *testing.T) {
		h := newHarness(t)
		ns := nodes(h, 2)
		job, _ := h.register(mockSystemJob("sys", false))
		h.must(h.store.DeleteNodes(h.next(), []string{ns[1].ID}))
		h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
		p := h.lastPlan()
		_, stopped := planned(p)
		if len(stopped) != 1 || stopped[0].NodeID != ns[1].ID || stopped[0].ClientStatus != structs.AllocClientStatusLost || stopped[0].DesiredDescription != allocLost {
			t.Fatalf("stopped %+v, want the alloc of the gone node lost", stopped)
		}
		wantStops(t, p, "web", 1)
	})
}

// TestSystemSched_UpdateDecisions checks how a system job's existing
// allocs are handled per node, with the plan's annotations.
func TestSystemSched_UpdateDecisions(t *testing.T) {
	t.Run("in-place update", func(t *testing.T) {
		h := newHarness(t)
		nodes(h, 2)
		job, _ := h.register(mockSystemJob("sys", false))
		v2 := job.Copy()
		v2.Meta = map[string]string{"owner": "ops"}
		v2, _ = h.register(v2)
		p := h.lastPlan()
		placed, stopped := planned(p)
		if len(stopped) != 0 || len(placed) != 2 {
			t.Fatalf("placed %d stopped %d, want 2 in-place updates", len(placed), len(stopped))
		}
		for _, a := range placed {
			if a.Job.Version != v2.Version || a.PreviousAllocation != "" {
				t.Fatalf("%s at version %d replacing %q", a.ID, a.Job.Version, a.PreviousAllocation)
			}
		}
		if du := p.Annotations.DesiredTGUpdates["web"]; du.InPlaceUpdate != 2 || du.DestructiveUpdate != 0 {
			t.Fatalf("annotations %+v", du)
		}
	})
	t.Run("max_parallel 0 updates every node at once", func(t *testing.T) {
		h := newHarness(t)
		nodes(h, 3)
		job, _ := h.register(mockSystemJob("sys", false))
		v2 := job.Copy()
		v2.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/v2"}
		v2.TaskGroups[0].Update = &structs.UpdateStrategy{MaxParallel: 0, Stagger: 30 * time.Second}
		h.register(v2)
		placed, stopped := planned(h.lastPlan())
		if len(stopped) != 3 || len(placed) != 3 || len(h.created) != 0 {
			t.Fatalf("placed %d stopped %d, %d evals created; want all 3 replaced and no stagger eval", len(placed), len(stopped), len(h.created))
		}
	})
	t.Run("node no longer feasible", func(t *testing.T) {
		h := newHarness(t)
		ns := nodes(h, 2)
		job, _ := h.register(mockSystemJob("sys", false))
		n := ns[0].Copy()
		delete(n.Drivers, "exec") // the job's driver
		h.upsertNode(n)
		h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
		p := h.lastPlan()
		_, stopped := planned(p)
		if len(stopped) != 1 || stopped[0].NodeID != n.ID || stopped[0].DesiredDescription != allocNodeInfeasible {
			t.Fatalf("stopped %+v", stopped)
		}
		if du := p.Annotations.DesiredTGUpdates["web"]; du.Stop != 1 || du.Ignore != 1 {
			t.Fatalf("annotations %+v, want 1 stop and 1 kept", du)
		}
	})
	t.Run("duplicate on a node keeps the older", func(t *testing.T) {
		h := newHarness(t)
		ns := nodes(h, 1)
		job, _ := h.register(mockSystemJob("sys", false))
		first := h.liveAllocs(job)[0]
		dup := mock.Alloc("dup", job, ns[0].ID)
		dup.Name = first.Name
		h.upsertAllocs(dup)
		h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
		p := h.lastPlan()
		placed, stopped := planned(p)
		if len(placed) != 0 || len(stopped) != 1 || stopped[0].ID != "dup" {
			t.Fatalf("placed %d stopped %+v, want dup stopped", len(placed), stopped)
		}
		if du := p.Annotations.DesiredTGUpdates["web"]; du.Stop != 1 || du.Ignore != 1 {
			t.Fatalf("annotations %+v", du)
		}
	})
	t.Run("sysbatch alloc that finished counts", func(t *testing.T) {
		h := newHarness(t)
		nodes(h, 2)
		job, _ := h.register(mockSystemJob("sb", true))
		for _, a := range h.liveAllocs(job) {
			h.setClient(a, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusComplete })
		}
		e := mockEval(job, structs.EvalTriggerNodeUpdate)
		e.AnnotatePlan = true
		h.process(e)
		p := h.lastPlan()
		if placed, _ := planned(p); len(placed) != 0 {
			t.Fatalf("re-ran %d finished allocs", len(placed))
		}
		if du := p.Annotations.DesiredTGUpdates["web"]; du.Ignore != 2 || du.Place != 0 {
			t.Fatalf("annotations %+v, want the 2 finished allocs ignored", du)
		}
	})
}

// TestSystemSched_BlockedEvalThenRejectedPlansStillCompletes checks that
// writing the blocked eval for a node without room does not use up a plan
// attempt: with all but the last attempt's plan rejected, the placements
// on the other nodes still commit.
func TestSystemSched_BlockedEvalThenRejectedPlansStillCompletes(t *testing.T) {
	h := newHarness(t)
	small := mockNode()
	small.NodeResources.MemoryMB = 100
	h.upsertNode(small)
	nodes(h, 2)
	h.rejectPlans = MaxSystemScheduleAttempts - 1
	job, e := h.register(mockSystemJob("sys", false))
	if len(h.plans) != MaxSystemScheduleAttempts || len(h.liveAllocs(job)) != 2 {
		t.Fatalf("%d plans, %d allocs; want %d and 2", len(h.plans), len(h.liveAllocs(job)), MaxSystemScheduleAttempts)
	}
	if len(h.created) != 1 || h.created[0].Status != structs.EvalStatusBlocked {
		t.Fatalf("created %+v, want one blocked eval", h.created)
	}
	if last := h.lastEval(); last.ID != e.ID || last.Status != structs.EvalStatusComplete {
		t.Fatalf("eval %s %q", last.Status, last.StatusDescription)
	}
	if du := h.lastPlan().Annotations.DesiredTGUpdates["web"]; du.Place != 2 {
		t.Fatalf("annotations %+v, want 2 placements", du)
	}
}
