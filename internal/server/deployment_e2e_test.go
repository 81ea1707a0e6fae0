package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// markHealthy reports every running-desired alloc of the job healthy, as a
// client would after its checks pass: one client update per batch.
func markHealthy(t *testing.T, s *Server, job string) int {
	t.Helper()
	var updates []*structs.Allocation
	for _, a := range liveAllocs(t, s, job) {
		if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			continue
		}
		healthy := true
		updates = append(updates, &structs.Allocation{ID: a.ID, ClientStatus: structs.AllocClientStatusRunning,
			DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: s.now()}})
	}
	if len(updates) > 0 {
		if _, err := s.raftApply(context.Background(), structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: updates}); err != nil {
			t.Fatal(err)
		}
	}
	return len(updates)
}

func evalsByTrigger(t *testing.T, s *Server, job, trigger string) []*structs.Evaluation {
	evals, err := s.State().EvalsByJob(nil, "default", job)
	if err != nil {
		t.Fatal(err)
	}
	var out []*structs.Evaluation
	for _, e := range evals {
		if e.TriggeredBy == trigger {
			out = append(out, e)
		}
	}
	return out
}

// TestEvalStatus_CompleteToPending_DeploymentWatcher_OneEvalPerStepNoPointers is the
// rolling-update example of docs/design.md: a service job of count 3 updated with max_parallel = 1
// and canary = 1 (auto-promoted) takes 1 job-register eval and 3
// deployment-watcher evals, one per healthy step, and the deployment-
// watcher evals break the chain (no PreviousEval).
func TestEvalStatus_CompleteToPending_DeploymentWatcher_OneEvalPerStepNoPointers(t *testing.T) {
	s := realServer(t)
	for i := 1; i <= 4; i++ {
		if _, err := s.RegisterNode(e2eNode(i, 8000, 16384)); err != nil {
			t.Fatal(err)
		}
	}
	job := e2eJob("web", 3, 500, 256)
	job.Update = structs.UpdateStrategy{MaxParallel: 1, Canary: 1, AutoPromote: true,
		MinHealthyTime: time.Second, HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute}
	first, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: job})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, first.EvalID, structs.EvalStatusComplete)
	markHealthy(t, s, "web")
	waitFor(t, func() bool { return deploymentStatus(t, s, "web", 0) == structs.DeploymentStatusSuccessful })

	v1 := job.Copy()
	v1.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true", "v": "2"} // destructive
	update, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: v1})
	if err != nil {
		t.Fatal(err)
	}
	// The update's eval places the canary, unless the version-0
	// deployment's last deployment-watcher eval, queued just before it,
	// already did: then it is a no-op, canceled.
	waitFor(t, func() bool {
		e, _ := s.State().EvalByID(nil, update.EvalID)
		return e != nil && e.TerminalStatus()
	})
	before := len(evalsByTrigger(t, s, "web", structs.EvalTriggerDeploymentWatcher))
	// Each healthy report moves the rollout one step: canary, then two old
	// allocs replaced one at a time.
	waitFor(t, func() bool {
		markHealthy(t, s, "web")
		return deploymentStatus(t, s, "web", 1) == structs.DeploymentStatusSuccessful
	})
	dw := evalsByTrigger(t, s, "web", structs.EvalTriggerDeploymentWatcher)[before:]
	if len(dw) != 3 {
		t.Fatalf("%d deployment-watcher evals for the update, want 3", len(dw))
	}
	for _, e := range dw {
		if e.PreviousEval != "" || e.DeploymentID == "" {
			t.Errorf("deployment-watcher eval %s: PreviousEval %q DeploymentID %q", e.ID, e.PreviousEval, e.DeploymentID)
		}
	}
	if regs := evalsByTrigger(t, s, "web", structs.EvalTriggerJobRegister); len(regs) != 2 {
		t.Errorf("%d job-register evals, want 2 (initial + update)", len(regs))
	}
	live := liveAllocs(t, s, "web")
	if len(live) != 3 {
		t.Fatalf("%d live allocs after the rollout, want 3", len(live))
	}
	for _, a := range live {
		if a.Job.Version != 1 {
			t.Errorf("alloc %s still on version %d", a.ID, a.Job.Version)
		}
	}
}

func deploymentStatus(t *testing.T, s *Server, job string, version uint64) string {
	ds, err := s.State().DeploymentsByJobID(nil, "default", job)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.JobVersion == version {
			return d.Status
		}
	}
	return ""
}

// reportHealth reports every live alloc of the job without health yet as
// healthy or unhealthy, as clients would.
func reportHealth(t *testing.T, s *Server, job string, healthy bool) {
	t.Helper()
	var updates []*structs.Allocation
	for _, a := range liveAllocs(t, s, job) {
		if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			continue
		}
		h := healthy
		status := structs.AllocClientStatusRunning
		updates = append(updates, &structs.Allocation{ID: a.ID, ClientStatus: status,
			DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &h, Timestamp: s.now()}})
	}
	if len(updates) > 0 {
		if _, err := s.raftApply(context.Background(), structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: updates}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeployment_SuccessMarksVersionStable_FailureAutoRevertsToIt(t *testing.T) {
	s, job := deployedWeb(t, structs.UpdateStrategy{MaxParallel: 1, AutoRevert: true, MinHealthyTime: time.Second,
		HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute})
	waitFor(t, func() bool {
		j, _ := s.State().JobByID(nil, "default", "web")
		return j.Stable && j.Version == 0
	})
	versions, _ := s.State().JobVersionsByID(nil, "default", "web")
	if !versions[0].Stable {
		t.Fatal("version 0 not marked stable in the version history")
	}

	bad := job.Copy()
	bad.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/false"}
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: bad}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		reportHealth(t, s, "web", false)
		return deploymentStatus(t, s, "web", 1) == structs.DeploymentStatusFailed
	})
	var current *structs.Job
	waitFor(t, func() bool {
		current, _ = s.State().JobByID(nil, "default", "web")
		return current.Version == 2
	})
	if !current.SpecEqual(versionOf(t, s, "web", 0)) {
		t.Fatal("auto-revert did not register version 0's spec")
	}
	ds, _ := s.State().DeploymentsByJobID(nil, "default", "web")
	for _, d := range ds {
		if d.JobVersion == 1 && !strings.Contains(d.StatusDescription, "rolling back to job version 0") {
			t.Errorf("failed deployment description %q", d.StatusDescription)
		}
	}
}

// deployedWeb starts a real server with three nodes and registers job
// "web" (two allocs) with update, its version 0 deployed successfully
// (every alloc reported healthy).
func deployedWeb(t *testing.T, update structs.UpdateStrategy) (*Server, *structs.Job) {
	t.Helper()
	s := realServer(t)
	for i := 1; i <= 3; i++ {
		if _, err := s.RegisterNode(e2eNode(i, 8000, 16384)); err != nil {
			t.Fatal(err)
		}
	}
	job := e2eJob("web", 2, 500, 256)
	job.Update = update
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: job}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		reportHealth(t, s, "web", true)
		return deploymentStatus(t, s, "web", 0) == structs.DeploymentStatusSuccessful
	})
	return s, job
}

func versionOf(t *testing.T, s *Server, job string, v uint64) *structs.Job {
	j, err := s.State().JobByIDAndVersion(nil, "default", job, v)
	if err != nil || j == nil {
		t.Fatalf("version %d of %s: %v", v, job, err)
	}
	return j
}

// TestDeployment_ScaleAndInPlaceUpdate_SucceedWithoutRevert: `job scale` and
// an in-place change (job meta) move the running allocs into the new
// version's deployment. Their health belongs to the old deployment, so the
// scheduler clears it (as Nomad does) and the clients report it again;
// otherwise the new deployment never counts them and, with auto_revert,
// fails at its progress deadline and rolls the job back. A scaled version
// is not stable before its deployment succeeds.
func TestDeployment_ScaleAndInPlaceUpdate_SucceedWithoutRevert(t *testing.T) {
	s, job := deployedWeb(t, structs.UpdateStrategy{MaxParallel: 1, AutoRevert: true, MinHealthyTime: time.Second,
		HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute})
	waitFor(t, func() bool { return versionOf(t, s, "web", 0).Stable })

	three := int64(3)
	if _, err := JobScale.Call(context.Background(), s, &structs.JobScaleArgs{JobID: "web", Group: job.TaskGroups[0].Name,
		Count: &three, WriteRequest: structs.WriteRequest{Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	if versionOf(t, s, "web", 1).Stable {
		t.Fatal("the scaled version 1 is stable before its deployment succeeded")
	}
	waitFor(t, func() bool {
		reportHealth(t, s, "web", true)
		return deploymentStatus(t, s, "web", 1) == structs.DeploymentStatusSuccessful
	})

	current, _ := s.State().JobByID(nil, "default", "web")
	meta := current.Copy()
	meta.Meta = map[string]string{"owner": "team-a"} // no task uses it: in place
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: meta}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		reportHealth(t, s, "web", true)
		return deploymentStatus(t, s, "web", 2) == structs.DeploymentStatusSuccessful
	})
	waitFor(t, func() bool {
		j, _ := s.State().JobByID(nil, "default", "web")
		return j.Version == 2 && j.Stable
	})
	live := liveAllocs(t, s, "web")
	if len(live) != 3 {
		t.Fatalf("%d live allocs, want 3", len(live))
	}
	for _, a := range live {
		if a.Job.Version != 2 || a.DeploymentStatus == nil || a.DeploymentStatus.Healthy == nil || !*a.DeploymentStatus.Healthy {
			t.Errorf("alloc %s: version %d, deployment status %+v", a.ID, a.Job.Version, a.DeploymentStatus)
		}
	}
}

// TestDeployment_FailStopsTheCanaryKeepsTheOldVersion: `deployment fail`
// during the canary phase stops the unpromoted canary and keeps every
// old-version alloc running, as Nomad does; the canary must not count
// toward the group's count and push an old alloc out instead.
func TestDeployment_FailStopsTheCanaryKeepsTheOldVersion(t *testing.T) {
	s, job := deployedWeb(t, structs.UpdateStrategy{MaxParallel: 1, Canary: 1, MinHealthyTime: time.Second,
		HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute})
	v1 := job.Copy()
	v1.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true", "v": "2"} // destructive
	update, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: v1})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, update.EvalID, structs.EvalStatusComplete)
	var canary *structs.Allocation
	for _, a := range liveAllocs(t, s, "web") {
		if a.Job.Version == 1 {
			canary = a
		}
	}
	if canary == nil || canary.DeploymentStatus == nil || !canary.DeploymentStatus.Canary {
		t.Fatalf("no canary placed: %+v", canary)
	}
	reportHealth(t, s, "web", true)

	fail, err := DeploymentFail.Call(context.Background(), s, &structs.DeploymentFailArgs{DeploymentID: canary.DeploymentID})
	if err != nil {
		t.Fatal(err)
	}
	// The fail's eval may find its work done by an eval that ran first
	// (then it is canceled as a no-op): wait for the outcome, not for
	// that eval's status.
	testutil.WaitFor(t, 15*time.Second, "the canary stopped and version 0 kept", func() (bool, string) {
		if e, _ := s.State().EvalByID(nil, fail.EvalID); e == nil || !e.TerminalStatus() {
			return false, "the fail's eval is not done: " + statusOf(e)
		}
		live := liveAllocs(t, s, "web")
		if len(live) != 2 {
			return false, fmt.Sprintf("%d live allocs after the fail, want the 2 of version 0", len(live))
		}
		for _, a := range live {
			if a.Job.Version != 0 {
				return false, fmt.Sprintf("alloc %s of version %d still runs (canary %v)", a.ID, a.Job.Version, a.ID == canary.ID)
			}
		}
		return true, ""
	})
}

// runningDeployment registers a service job with an update block and
// returns its version-0 deployment while it still runs (no health yet).
func runningDeployment(t *testing.T, s *Server, autoRevert bool) (*structs.Job, *structs.Deployment) {
	t.Helper()
	for i := 1; i <= 3; i++ {
		if _, err := s.RegisterNode(e2eNode(i, 8000, 16384)); err != nil {
			t.Fatal(err)
		}
	}
	job := e2eJob("web", 2, 500, 256)
	job.Update = structs.UpdateStrategy{MaxParallel: 1, AutoRevert: autoRevert, MinHealthyTime: time.Second,
		HealthyDeadline: time.Minute, ProgressDeadline: 10 * time.Minute}
	reg, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: job})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, reg.EvalID, structs.EvalStatusComplete)
	d, err := s.State().LatestDeploymentByJobID(nil, "default", "web")
	if err != nil || d == nil || !d.Active() {
		t.Fatalf("no running deployment: %+v, %v", d, err)
	}
	return job, d
}

// TestJobScale_RefusedDuringActiveDeployment: Nomad refuses `job scale`
// while the job's current version is being deployed ("job scaling blocked
// due to active deployment", 400): scaling would cancel the rollout. The
// refusal names the deployment and writes nothing.
func TestJobScale_RefusedDuringActiveDeployment(t *testing.T) {
	s := realServer(t)
	job, d := runningDeployment(t, s, false)
	before, _ := s.State().JobByID(nil, "default", "web")
	three := int64(3)
	_, err := JobScale.Call(context.Background(), s, &structs.JobScaleArgs{JobID: "web", Group: job.TaskGroups[0].Name,
		Count: &three, WriteRequest: structs.WriteRequest{Namespace: "default"}})
	wantCode(t, err, 400, d.ID)
	if err != nil && !strings.Contains(err.Error(), "job scaling blocked due to active deployment") {
		t.Errorf("error %q does not say scaling is blocked", err)
	}
	after, _ := s.State().JobByID(nil, "default", "web")
	if after.Version != before.Version || after.ModifyIndex != before.ModifyIndex || after.TaskGroups[0].Count != 2 {
		t.Errorf("job changed: version %d -> %d, count %d", before.Version, after.Version, after.TaskGroups[0].Count)
	}
	if got := deploymentStatus(t, s, "web", 0); got != structs.DeploymentStatusRunning {
		t.Errorf("deployment is %q after the refused scale, want running", got)
	}

	// Once the deployment is over, scaling works again.
	waitFor(t, func() bool {
		reportHealth(t, s, "web", true)
		return deploymentStatus(t, s, "web", 0) == structs.DeploymentStatusSuccessful
	})
	if _, err := JobScale.Call(context.Background(), s, &structs.JobScaleArgs{JobID: "web", Group: job.TaskGroups[0].Name,
		Count: &three, WriteRequest: structs.WriteRequest{Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
}

// TestDeploymentFail_AutoRevertsToLatestStable: a manual `deployment fail`
// of a job whose update block sets auto_revert rolls the job back to its
// latest stable version, as Nomad's Deployment.Fail does, in the same entry
// as the failure.
func TestDeploymentFail_AutoRevertsToLatestStable(t *testing.T) {
	s := realServer(t)
	job, _ := runningDeployment(t, s, true)
	waitFor(t, func() bool {
		reportHealth(t, s, "web", true)
		return deploymentStatus(t, s, "web", 0) == structs.DeploymentStatusSuccessful
	})
	waitFor(t, func() bool { return versionOf(t, s, "web", 0).Stable })

	v1 := job.Copy()
	v1.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true", "v": "2"} // destructive
	reg, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: v1})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, s, reg.EvalID, structs.EvalStatusComplete)
	d, _ := s.State().LatestDeploymentByJobID(nil, "default", "web")
	if d == nil || d.JobVersion != 1 || !d.Active() {
		t.Fatalf("no running deployment of version 1: %+v", d)
	}

	fail, err := DeploymentFail.Call(context.Background(), s, &structs.DeploymentFailArgs{DeploymentID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if fail.RevertedJobVersion == nil || *fail.RevertedJobVersion != 0 {
		t.Errorf("the fail's reply names reverted version %v, want 0 (Nomad's RevertedJobVersion)", fail.RevertedJobVersion)
	}
	current, _ := s.State().JobByID(nil, "default", "web")
	if current.Version != 2 || !current.SpecEqual(versionOf(t, s, "web", 0)) {
		t.Fatalf("after the fail the job is version %d; want version 2 reverting to version 0's spec", current.Version)
	}
	failed, _ := s.State().DeploymentByID(nil, d.ID)
	if failed.Status != structs.DeploymentStatusFailed || !strings.Contains(failed.StatusDescription, "rolling back to job version 0") {
		t.Errorf("deployment %s: %q", failed.Status, failed.StatusDescription)
	}
	waitEval(t, s, fail.EvalID, structs.EvalStatusComplete)
}
