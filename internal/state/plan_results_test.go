package state

import (
	"errors"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestUpsertPlanResults(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	low := setupJob(t, s, 6, "batch")
	running := mockAlloc("running", job, "n1")
	victim := mockAlloc("victim", low, "n2")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{running, victim}))
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{{ID: "running", ClientStatus: structs.AllocClientStatusRunning}}))

	// The plan's copies of existing allocs are stale.
	stop := mockAlloc("running", job, "n1")
	stop.Job = nil
	stop.DesiredStatus, stop.DesiredDescription = structs.AllocDesiredStatusStop, "node down"
	stop.ClientStatus = structs.AllocClientStatusLost
	stop.NodeID = "stale"
	preempt := &structs.Allocation{ID: "victim", PreemptedByAllocation: "new", DesiredDescription: "preempted"}
	placed := mockAlloc("new", job, "n2")
	placed.Job = nil // denormalized: the plan carries the job once
	placed.DeploymentID = "d1"
	placed.CreateTime = 0
	preemptEval := mockEval("pe1", "batch")
	preemptEval.TriggeredBy = structs.EvalTriggerPreemption

	ws := memdb.NewWatchSet()
	s.AllocsByNode(ws, "n2")
	req := &structs.ApplyPlanResultsRequest{
		Job:             job,
		Deployment:      mockDeployment("d1", job),
		AllocsStopped:   []*structs.Allocation{stop},
		AllocsPreempted: []*structs.Allocation{preempt},
		AllocsUpdated:   []*structs.Allocation{placed},
		PreemptionEvals: []*structs.Evaluation{preemptEval},
		UpdatedAt:       5000,
	}
	must(t, s.UpsertPlanResults(20, req))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}

	got, _ := s.AllocByID(nil, "running")
	switch {
	case got.DesiredStatus != structs.AllocDesiredStatusStop || got.DesiredDescription != "node down":
		t.Fatal("stop not applied")
	case got.ClientStatus != structs.AllocClientStatusLost:
		t.Fatal("lost not applied")
	case got.NodeID != "n1" || got.Job != job:
		t.Fatal("stale fields of the plan's copy applied")
	case got.ModifyTime != 5000 || got.AllocModifyIndex != 20:
		t.Fatalf("modify time %d index %d", got.ModifyTime, got.AllocModifyIndex)
	}
	v, _ := s.AllocByID(nil, "victim")
	if v.DesiredStatus != structs.AllocDesiredStatusEvict || v.PreemptedByAllocation != "new" || v.Job != low || v.TaskGroup != "web" {
		t.Fatalf("preempted %+v", v)
	}
	n, _ := s.AllocByID(nil, "new")
	if n == nil || n.Job == nil || n.Job.ID != "web" || n.CreateIndex != 20 || n.CreateTime != 5000 || n.ModifyTime != 5000 {
		t.Fatalf("placed %+v", n)
	}
	d, _ := s.DeploymentByID(nil, "d1")
	if d == nil || d.TaskGroups["web"].PlacedAllocs != 1 {
		t.Fatal("deployment not written before its placement was counted")
	}
	if e, _ := s.EvalByID(nil, "pe1"); e == nil {
		t.Fatal("preemption eval missing")
	}
	if j, _ := s.JobByID(nil, "default", "web"); j.Version != 0 || j.Status != structs.JobStatusRunning {
		t.Fatalf("job v%d %s", j.Version, j.Status)
	}
	for _, table := range []string{TableAllocs, TableDeployment, TableEvals, TableJobs} {
		wantIndex(t, s, table, 20)
	}
}

func TestUpsertPlanResults_AllOrNothing(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	req := &structs.ApplyPlanResultsRequest{
		AllocsUpdated:     []*structs.Allocation{mockAlloc("new", job, "n1")},
		DeploymentUpdates: []*structs.DeploymentStatusUpdate{{DeploymentID: "missing", Status: "failed"}},
	}
	if err := s.UpsertPlanResults(20, req); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if a, _ := s.AllocByID(nil, "new"); a != nil {
		t.Fatal("part of a failed plan was committed")
	}
	wantIndex(t, s, TableAllocs, 0)
}

func TestUpsertPlanResults_StaleJobNotRolledBack(t *testing.T) {
	s := newStore(t)
	old := setupJob(t, s, 5, "web")
	newer := mockJob("web")
	newer.TaskGroups[0].Count = 9
	must(t, s.UpsertJob(6, 0, newer))
	placed := mockAlloc("a1", old, "n1")
	placed.Job = nil
	must(t, s.UpsertPlanResults(7, &structs.ApplyPlanResultsRequest{Job: old, AllocsUpdated: []*structs.Allocation{placed}}))
	if j, _ := s.JobByID(nil, "default", "web"); j.Version != 1 || j.TaskGroups[0].Count != 9 {
		t.Fatalf("job rolled back to v%d", j.Version)
	}
	if a, _ := s.AllocByID(nil, "a1"); a.Job.Version != 0 {
		t.Fatalf("alloc should carry the plan's job version, got v%d", a.Job.Version)
	}
}

// TestUpsertPlanResults_ReplacementLinksTheOriginal: a new alloc that
// replaces another sets the original's NextAllocation in the same commit;
// a later in-place update of the replacement does not touch it again.
func TestUpsertPlanResults_ReplacementLinksTheOriginal(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{mockAlloc("orig", job, "n1")}))
	stop := &structs.Allocation{ID: "orig", DesiredStatus: structs.AllocDesiredStatusStop, DesiredDescription: "migrating"}
	repl := mockAlloc("repl", job, "n2")
	repl.PreviousAllocation = "orig"
	must(t, s.UpsertPlanResults(20, &structs.ApplyPlanResultsRequest{
		Job: job, AllocsStopped: []*structs.Allocation{stop}, AllocsUpdated: []*structs.Allocation{repl}, UpdatedAt: 5000,
	}))
	orig, _ := s.AllocByID(nil, "orig")
	if orig.NextAllocation != "repl" || orig.DesiredStatus != structs.AllocDesiredStatusStop || orig.ModifyIndex != 20 {
		t.Fatalf("original: next %q desired %q index %d", orig.NextAllocation, orig.DesiredStatus, orig.ModifyIndex)
	}
	must(t, s.UpsertPlanResults(30, &structs.ApplyPlanResultsRequest{Job: job, AllocsUpdated: []*structs.Allocation{repl}, UpdatedAt: 6000}))
	if orig, _ = s.AllocByID(nil, "orig"); orig.ModifyIndex != 20 {
		t.Fatalf("in-place update of the replacement rewrote the original at %d", orig.ModifyIndex)
	}
}
