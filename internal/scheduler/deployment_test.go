package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

func rollingJob(count, maxParallel, canary int) *structs.Job {
	j := mockJob("web", count)
	j.TaskGroups[0].Update = &structs.UpdateStrategy{MaxParallel: maxParallel, Canary: canary}
	return j
}

func TestDeployment_FirstVersionCreatesDeployment(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	job, e := h.register(rollingJob(3, 1, 0))
	d := h.plans[0].Deployment
	if d == nil || d.JobVersion != job.Version || d.Status != structs.DeploymentStatusRunning || d.TaskGroups["web"].DesiredTotal != 3 {
		t.Fatalf("deployment %+v", d)
	}
	for _, a := range h.liveAllocs(job) {
		if a.DeploymentID != d.ID {
			t.Fatalf("alloc not in deployment")
		}
	}
	if h.lastEval().DeploymentID != d.ID || h.lastEval().ID != e.ID {
		t.Fatal("eval does not point at the deployment")
	}
}

func TestDeployment_MaxParallelLimitsDestructiveUpdates(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	job, _ := h.register(rollingJob(4, 2, 0))
	first := h.plans[0].Deployment

	v2 := destructiveUpdate(job)
	v2 = h.upsertJob(v2)
	h.process(mockEval(v2, structs.EvalTriggerJobRegister))
	p := h.lastPlan()
	placed, stopped := planned(p)
	if len(placed) != 2 || len(stopped) != 2 {
		t.Fatalf("placed %d stopped %d, want max_parallel 2", len(placed), len(stopped))
	}
	if du := p.Annotations.DesiredTGUpdates["web"]; du.DestructiveUpdate != 2 || du.Ignore != 2 {
		t.Fatalf("annotations %+v, want 2 destructive updates and 2 held back", du)
	}
	if len(p.DeploymentUpdates) != 1 || p.DeploymentUpdates[0].DeploymentID != first.ID || p.DeploymentUpdates[0].Status != structs.DeploymentStatusCancelled {
		t.Fatalf("old deployment not cancelled: %+v", p.DeploymentUpdates)
	}
	if p.Deployment == nil || p.Deployment.JobVersion != v2.Version {
		t.Fatalf("new deployment %+v", p.Deployment)
	}
	// Until the new allocs are healthy, nothing more is replaced.
	plans := len(h.plans)
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	if len(h.plans) != plans {
		t.Fatalf("replaced more while the first step is unhealthy")
	}
	// Once healthy, the next step goes.
	for _, a := range placed {
		stored, _ := h.store.AllocByID(nil, a.ID)
		h.setClient(stored, func(a *structs.Allocation) {
			a.ClientStatus = structs.AllocClientStatusRunning
			a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: ptr(true)}
		})
	}
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	placed, stopped = planned(h.lastPlan())
	if len(placed) != 2 || len(stopped) != 2 {
		t.Fatalf("second step placed %d stopped %d", len(placed), len(stopped))
	}
}

func TestDeployment_CanariesPlacedBeforeRollout(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	job, _ := h.register(rollingJob(3, 1, 1))

	v2 := destructiveUpdate(job)
	v2 = h.upsertJob(v2)
	h.process(mockEval(v2, structs.EvalTriggerJobRegister))
	p := h.lastPlan()
	placed, stopped := planned(p)
	if len(placed) != 1 || len(stopped) != 0 || placed[0].DeploymentStatus == nil || !placed[0].DeploymentStatus.Canary {
		t.Fatalf("placed %v stopped %v", placed, stopped)
	}
	st := p.Deployment.TaskGroups["web"]
	if st.DesiredCanaries != 1 || len(st.PlacedCanaries) != 1 || st.PlacedCanaries[0] != placed[0].ID {
		t.Fatalf("deployment state %+v", st)
	}
	if du := p.Annotations.DesiredTGUpdates["web"]; du.Canary != 1 || du.DestructiveUpdate != 0 {
		t.Fatalf("annotations %+v", du)
	}
	// Re-evaluating before promotion changes nothing.
	plans := len(h.plans)
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	if len(h.plans) != plans {
		_, st2 := planned(h.lastPlan())
		t.Fatalf("unpromoted canary deployment moved on: stopped %d", len(st2))
	}
	// After promotion, the old alloc sharing the canary's name is stopped
	// and the rollout continues max_parallel at a time.
	d, _ := h.store.DeploymentByID(nil, p.Deployment.ID)
	promoted := d.Copy()
	promoted.TaskGroups["web"].Promoted = true
	h.must(h.store.UpsertDeployment(h.next(), promoted))
	stored, _ := h.store.AllocByID(nil, placed[0].ID)
	h.setClient(stored, func(a *structs.Allocation) {
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: ptr(true), Canary: true}
	})
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	placed2, stopped2 := planned(h.lastPlan())
	if len(stopped2) != 2 || len(placed2) != 1 {
		t.Fatalf("after promotion placed %d stopped %d", len(placed2), len(stopped2))
	}
}

// An update block with neither max_parallel nor canary set rolls nothing:
// no deployment is created, and a deployment without a progress deadline
// has no time it must progress by.
func TestDeployment_EmptyUpdateBlockAndNoProgressDeadline(t *testing.T) {
	h := newHarness(t)
	nodes(h, 2)
	h.register(rollingJob(2, 0, 0))
	if d := h.plans[0].Deployment; d != nil {
		t.Fatalf("max_parallel 0 and canary 0 created deployment %+v", d)
	}

	h = newHarness(t)
	nodes(h, 2)
	h.register(rollingJob(2, 1, 0)) // ProgressDeadline 0
	d := h.plans[0].Deployment
	if d == nil {
		t.Fatal("max_parallel 1 created no deployment")
	}
	if by := d.TaskGroups["web"].RequireProgressBy; !by.IsZero() {
		t.Fatalf("no progress deadline, yet RequireProgressBy %v", by)
	}
}

// An update block with max_parallel 0 replaces every changed alloc at once,
// as if there were no update block.
// startRollout registers a rolling job (count, max_parallel, canaries)
// on three nodes, then its destructive update, and returns the harness
// and the stored update.
func startRollout(t *testing.T, count, maxParallel, canaries int) (*harness, *structs.Job) {
	t.Helper()
	h := newHarness(t)
	nodes(h, 3)
	job, _ := h.register(rollingJob(count, maxParallel, canaries))
	v2, _ := h.register(destructiveUpdate(job))
	return h, v2
}

func TestDeployment_MaxParallelZeroUpdatesAllAtOnce(t *testing.T) {
	h, v2 := startRollout(t, 3, 0, 0)
	placed, stopped := planned(h.lastPlan())
	if len(placed) != 3 || len(stopped) != 3 {
		t.Fatalf("placed %d stopped %d, want 3 and 3", len(placed), len(stopped))
	}
	for _, a := range h.liveAllocs(v2) {
		if a.Job.Version != v2.Version {
			t.Fatalf("alloc %s left at version %d", a.Name, a.Job.Version)
		}
	}
}

// Canaries take the lowest indexes not held by a canary already.
func TestDeployment_CanaryNames(t *testing.T) {
	h, _ := startRollout(t, 3, 1, 2)
	placed, _ := planned(h.lastPlan())
	want := []string{structs.AllocName("web", "web", 0), structs.AllocName("web", "web", 1)}
	if got := namesOf(placed); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("canaries %v, want %v", got, want)
	}
}

// TestDeployment_GroupJoinsStoredDeployment checks that an eval which
// places a group the job version's active deployment does not track yet
// adds the group to a copy of that deployment in the plan, and leaves the
// stored deployment (read from the snapshot, so shared) untouched.
func TestDeployment_GroupJoinsStoredDeployment(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	j := rollingJob(1, 1, 0)
	j.TaskGroups[0].Name = "a"
	b := j.TaskGroups[0].Copy()
	b.Name = "b"
	j.TaskGroups = append(j.TaskGroups, b)
	job := h.upsertJob(j)
	d := &structs.Deployment{
		ID: "d1", Namespace: job.Namespace, JobID: job.ID, JobVersion: job.Version,
		JobCreateIndex: job.CreateIndex, JobModifyIndex: job.ModifyIndex,
		Status:     structs.DeploymentStatusRunning,
		TaskGroups: map[string]*structs.DeploymentState{"a": {DesiredTotal: 1}},
	}
	h.must(h.store.UpsertDeployment(h.next(), d))
	a := mock.Alloc("alloc-a", job, ns[0].ID)
	a.DeploymentID = d.ID
	a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: ptr(true)}
	h.upsertAllocs(a)
	stored, err := h.store.DeploymentByID(nil, d.ID)
	h.must(err)

	h.process(mockEval(job, structs.EvalTriggerJobRegister))
	p := h.lastPlan()
	placed, _ := planned(p)
	if len(placed) != 1 || placed[0].TaskGroup != "b" || placed[0].DeploymentID != d.ID {
		t.Fatalf("placed %v, want b in deployment %s", placed, d.ID)
	}
	pd := p.Deployment
	if pd == nil || pd.ID != d.ID || pd.TaskGroups["a"] == nil || pd.TaskGroups["b"] == nil || pd.TaskGroups["b"].DesiredTotal != 1 {
		t.Fatalf("plan's deployment %+v, want %s tracking a and b", pd, d.ID)
	}
	if len(stored.TaskGroups) != 1 {
		t.Fatalf("the stored deployment was changed in place: %v", stored.TaskGroups)
	}
}

// TestDeployment_SteadyCanaryJobStartsNoDeployment checks that a job with
// a canary update block whose deployment finished starts no new one on a
// later eval: with nothing to replace there is nothing to canary.
func TestDeployment_SteadyCanaryJobStartsNoDeployment(t *testing.T) {
	h := newHarness(t)
	nodes(h, 2)
	job, _ := h.register(rollingJob(2, 1, 1))
	d := h.plans[0].Deployment
	if d == nil || len(h.liveAllocs(job)) != 2 {
		t.Fatalf("first version: deployment %v, %d allocs", d, len(h.liveAllocs(job)))
	}
	done := d.Copy()
	done.Status = structs.DeploymentStatusSuccessful
	h.must(h.store.UpsertDeployment(h.next(), done))

	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if len(h.plans) != plans {
		t.Fatalf("a steady job submitted a plan with deployment %+v", h.lastPlan().Deployment)
	}
}

// TestDeployment_InPlaceUpdatesJoinTheNewDeployment checks that allocs a
// new version updates in place join that version's deployment, and that
// in a job whose other group does not roll, that group's in-place updates
// join none.
func TestDeployment_InPlaceUpdatesJoinTheNewDeployment(t *testing.T) {
	h := newHarness(t)
	nodes(h, 2)
	j := rollingJob(2, 1, 0)
	plain := j.TaskGroups[0].Copy()
	plain.Name, plain.Update = "plain", nil
	j.TaskGroups = append(j.TaskGroups, plain)
	job, _ := h.register(j)
	first := h.plans[0].Deployment
	if first == nil || len(h.liveAllocs(job)) != 4 {
		t.Fatalf("first version: deployment %v, %d allocs", first, len(h.liveAllocs(job)))
	}

	v2 := job.Copy()
	v2.Meta = map[string]string{"owner": "ops"} // no task changed: in place
	v2, _ = h.register(v2)
	p := h.lastPlan()
	placed, stopped := planned(p)
	if len(stopped) != 0 || len(placed) != 4 {
		t.Fatalf("placed %d stopped %d, want 4 in-place updates", len(placed), len(stopped))
	}
	if p.Deployment == nil || p.Deployment.ID == first.ID || p.Deployment.JobVersion != v2.Version {
		t.Fatalf("new deployment %+v", p.Deployment)
	}
	for _, a := range placed {
		want := p.Deployment.ID
		if a.TaskGroup == "plain" {
			want = "" // the group does not roll: in no deployment
		}
		if a.DeploymentID != want {
			t.Errorf("%s (%s) in deployment %q, want %q", a.Name, a.TaskGroup, a.DeploymentID, want)
		}
	}
}

// TestDeployment_EveryPlacedCanaryIsRecorded checks that the plan's
// deployment lists each canary placed, not only the last one.
func TestDeployment_EveryPlacedCanaryIsRecorded(t *testing.T) {
	h, _ := startRollout(t, 3, 1, 2)
	p := h.lastPlan()
	placed, stopped := planned(p)
	if len(placed) != 2 || len(stopped) != 0 {
		t.Fatalf("placed %d stopped %d, want 2 canaries", len(placed), len(stopped))
	}
	st := p.Deployment.TaskGroups["web"]
	want := map[string]bool{placed[0].ID: true, placed[1].ID: true}
	if st.DesiredCanaries != 2 || len(st.PlacedCanaries) != 2 || !want[st.PlacedCanaries[0]] || !want[st.PlacedCanaries[1]] {
		t.Fatalf("deployment state %+v, want canaries %v", st, want)
	}
}

// TestDeployment_HealthyCanaryWaitsForPromotion checks that a canary that
// is healthy but not promoted still holds the rollout back.
func TestDeployment_HealthyCanaryWaitsForPromotion(t *testing.T) {
	h, v2 := startRollout(t, 3, 1, 1)
	placed, _ := planned(h.lastPlan())
	if len(placed) != 1 {
		t.Fatalf("placed %d, want the canary", len(placed))
	}
	canary, _ := h.store.AllocByID(nil, placed[0].ID)
	h.setClient(canary, func(a *structs.Allocation) {
		a.ClientStatus = structs.AllocClientStatusRunning
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: ptr(true), Canary: true}
	})
	plans := len(h.plans)
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	if len(h.plans) != plans {
		pl, st := planned(h.lastPlan())
		t.Fatalf("unpromoted healthy canary: placed %d stopped %d", len(pl), len(st))
	}
}

// TestDeployment_FailedDeploymentEndsTheRollout checks that once the
// version's deployment failed, later evals make no further destructive
// update and start no new deployment.
func TestDeployment_FailedDeploymentEndsTheRollout(t *testing.T) {
	h, v2 := startRollout(t, 3, 1, 0)
	p := h.lastPlan()
	if placed, _ := planned(p); len(placed) != 1 || p.Deployment == nil {
		t.Fatalf("first step placed %d, deployment %v", len(placed), p.Deployment)
	}
	d, _ := h.store.DeploymentByID(nil, p.Deployment.ID)
	failed := d.Copy()
	failed.Status = structs.DeploymentStatusFailed
	h.must(h.store.UpsertDeployment(h.next(), failed))
	// The new alloc turns healthy: without the failure this is the next step.
	for _, a := range h.liveAllocs(v2) {
		if a.Job.Version == v2.Version {
			h.setClient(a, func(a *structs.Allocation) {
				a.ClientStatus = structs.AllocClientStatusRunning
				a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: ptr(true)}
			})
		}
	}
	plans := len(h.plans)
	h.process(mockEval(v2, structs.EvalTriggerDeploymentWatcher))
	if len(h.plans) != plans {
		placed, stopped := planned(h.lastPlan())
		t.Fatalf("after the failure: placed %d stopped %d, deployment %v", len(placed), len(stopped), h.lastPlan().Deployment)
	}
}
