package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// runningJob starts an agent with the real schedulers, two simulated
// nodes, and job "web" (count 2) placed.
func runningJob(t *testing.T) (*Agent, *api.Client) {
	t.Helper()
	a, c := testAgent(t, allSchedulers)
	for i := 1; i <= 2; i++ {
		if _, err := a.Server().RegisterNode(simNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	job := testAPIJob("web")
	job.TaskGroups[0].Count = pointer(2)
	job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(200), MemoryMB: pointer(128)}
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitAllocs(t, c, "web", 2)
	// The eval's final status is written after its plan: wait for it, so
	// callers checking that nothing else writes start from a quiet state.
	waitEvalDone(t, c, resp.EvalID)
	return a, c
}

// endDeployment fails the job's running deployment (these jobs have no
// auto_revert): simulated nodes report no health, and Nomad blocks
// `job scale` while a deployment of the job is active.
func endDeployment(t *testing.T, c *api.Client, job string) {
	t.Helper()
	d, _, err := c.Jobs().LatestDeployment(job, nil)
	if err != nil || d == nil {
		t.Fatalf("latest deployment of %s: %v", job, err)
	}
	resp, _, err := c.Deployments().Fail(d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitEvalDone(t, c, resp.EvalID)
}

func waitEvalDone(t *testing.T, c *api.Client, id string) *api.Evaluation {
	t.Helper()
	var e *api.Evaluation
	testutil.WaitFor(t, 15*time.Second, "eval "+id+" to finish", func() (bool, string) {
		var err error
		if e, _, err = c.Evaluations().Info(id, nil); err != nil {
			return false, err.Error()
		}
		return e.Status == "complete" || e.Status == "failed" || e.Status == "canceled", "status " + e.Status
	})
	return e
}

func TestEvalTrigger_AllocStop_OneEvalThenReplaced(t *testing.T) {
	_, c := runningJob(t)
	allocs := waitAllocs(t, c, "web", 2)
	resp, err := c.Allocations().Stop(&api.Allocation{ID: allocs[0].ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := waitEvalDone(t, c, resp.EvalID)
	if e.TriggeredBy != "alloc-stop" || e.JobID != "web" || e.Status != "complete" {
		t.Fatalf("alloc-stop eval = %+v", e)
	}
	stopped, _, err := c.Allocations().Info(allocs[0].ID, nil)
	if err != nil || stopped.DesiredStatus != "stop" {
		t.Fatalf("stopped alloc: %v %+v", err, stopped)
	}
	live := waitAllocs(t, c, "web", 2)
	for _, a := range live {
		if a.ID == allocs[0].ID {
			t.Fatal("stopped alloc still desired to run")
		}
	}
}

func TestEvalTrigger_JobScaling_OneEvalAndNewCount(t *testing.T) {
	a, c := runningJob(t)
	endDeployment(t, c, "web")
	resp, _, err := c.Jobs().Scale("web", "web", pointer(4), "more", false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := waitEvalDone(t, c, resp.EvalID)
	if e.TriggeredBy != "job-scaling" {
		t.Fatalf("eval trigger %q", e.TriggeredBy)
	}
	waitAllocs(t, c, "web", 4)
	job, _, _ := c.Jobs().Info("web", nil)
	if *job.TaskGroups[0].Count != 4 || *job.Version != 1 {
		t.Fatalf("count %d version %d", *job.TaskGroups[0].Count, *job.Version)
	}
	before := a.Server().State().LatestIndex()
	for _, bad := range []struct {
		group string
		count int
		code  string
	}{{"web", -1, "400"}, {"nope", 1, "404"}} {
		if _, _, err := c.Jobs().Scale("web", bad.group, pointer(bad.count), "", false, nil, nil); err == nil || !strings.Contains(err.Error(), bad.code) {
			t.Errorf("scale %s to %d: %v, want %s", bad.group, bad.count, err, bad.code)
		}
	}
	if a.Server().State().LatestIndex() != before {
		t.Error("rejected scale moved the index")
	}
}

func TestJobEvaluate_ForcesANewEval(t *testing.T) {
	_, c := runningJob(t)
	id, _, err := c.Jobs().ForceEvaluate("web", nil)
	if err != nil || id == "" {
		t.Fatalf("evaluate: %v %q", err, id)
	}
	// The job already runs as specified: the forced eval is a no-op,
	// which the scheduler cancels.
	if e := waitEvalDone(t, c, id); e.TriggeredBy != "job-register" || e.Status != "canceled" {
		t.Fatalf("forced eval %+v", e)
	}
}

func TestJobRevert_RegistersTheOldVersion(t *testing.T) {
	_, c := runningJob(t)
	endDeployment(t, c, "web")
	if _, _, err := c.Jobs().Scale("web", "web", pointer(3), "", false, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().Revert("web", 0, pointer(uint64(1)), nil, "", ""); err != nil {
		t.Fatal(err)
	}
	job, _, _ := c.Jobs().Info("web", nil)
	if *job.Version != 2 || *job.TaskGroups[0].Count != 2 {
		t.Fatalf("after revert: version %d count %d", *job.Version, *job.TaskGroups[0].Count)
	}
	if _, _, err := c.Jobs().Revert("web", 0, pointer(uint64(7)), nil, "", ""); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("revert with a wrong prior version: %v", err)
	}
}

func TestJobSummary_CountsAllocsByClientStatus(t *testing.T) {
	_, c := runningJob(t)
	sum, _, err := c.Jobs().Summary("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := sum.Summary["web"]; g.Starting != 2 || g.Running != 0 || g.Queued != 0 {
		t.Fatalf("summary %+v", g)
	}
}

func TestJobValidate_ListsEveryProblemWithoutWriting(t *testing.T) {
	a, c := testAgent(t, nil)
	job := testAPIJob("web")
	job.Type = pointer("nope")
	job.TaskGroups[0].Tasks[0].Driver = ""
	before := a.Server().State().LatestIndex()
	resp, _, err := c.Jobs().Validate(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ValidationErrors) != 2 || !strings.Contains(resp.Error, "Driver") {
		t.Fatalf("validation %+v", resp)
	}
	ok, _, err := c.Jobs().Validate(testAPIJob("good"), nil)
	if err != nil || len(ok.ValidationErrors) != 0 {
		t.Fatalf("valid job: %v %+v", err, ok)
	}
	if a.Server().State().LatestIndex() != before {
		t.Error("validate wrote to state")
	}
}

func TestDeployments_ManualCanaryPromotion(t *testing.T) {
	_, c := runningJob(t)
	job, _, _ := c.Jobs().Info("web", nil)
	job.TaskGroups[0].Update = &api.UpdateStrategy{MaxParallel: pointer(1), Canary: pointer(1)}
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"MODE": "v2"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var d *api.Deployment
	testutil.WaitFor(t, 15*time.Second, "a canary placed", func() bool {
		d, _, _ = c.Jobs().LatestDeployment("web", nil)
		return d != nil && len(d.TaskGroups["web"].PlacedCanaries) == 1
	})
	// Unhealthy canaries cannot be promoted: 400 naming the group.
	if _, _, err := c.Deployments().PromoteAll(d.ID, nil); err == nil || !strings.Contains(err.Error(), "canaries healthy") {
		t.Fatalf("promote of an unhealthy canary: %v", err)
	}
	list, _, err := c.Deployments().List(nil)
	if err != nil || len(list) == 0 {
		t.Fatalf("deployment list: %v %d", err, len(list))
	}
	if _, _, err := c.Deployments().Fail(d.ID, nil); err != nil {
		t.Fatal(err)
	}
	failed, _, _ := c.Deployments().Info(d.ID, nil)
	if failed.Status != "failed" {
		t.Fatalf("status after fail: %s", failed.Status)
	}
}
