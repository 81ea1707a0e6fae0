package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestContract_DeploymentCommands: `deployment list`, `deployment status`
// (groups with canaries), `deployment pause`, `deployment resume`,
// `deployment promote` (and `job promote`), `deployment fail`.
func TestContract_DeploymentCommands(t *testing.T) {
	c, _ := deployedJob(t)
	job, _, _ := c.Jobs().Info("web", nil)
	job.TaskGroups[0].Update = &api.UpdateStrategy{Canary: pointer(1), MinHealthyTime: pointer(100 * time.Millisecond)}
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "2"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var dep *api.Deployment
	testutil.WaitFor(t, 20*time.Second, "a healthy canary waiting for promotion", func() (bool, string) {
		var err error
		if dep, _, err = c.Jobs().LatestDeployment("web", nil); err != nil || dep == nil {
			return false, "no deployment"
		}
		st := dep.TaskGroups["g"]
		return dep.JobVersion == 1 && st != nil && st.HealthyAllocs == 1 && len(st.PlacedCanaries) == 1, dep.Status
	})
	dep, _, err := c.Deployments().Info(dep.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "deployment status", dep, "ID", "Namespace", "JobID", "JobVersion", "JobModifyIndex", "JobCreateIndex", "Status",
		"StatusDescription", "TaskGroups[g].DesiredCanaries", "TaskGroups[g].DesiredTotal", "TaskGroups[g].PlacedCanaries",
		"TaskGroups[g].PlacedAllocs", "TaskGroups[g].HealthyAllocs", "TaskGroups[g].RequireProgressBy", "CreateIndex", "ModifyIndex")
	list, _, err := c.Deployments().List(nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("deployment list %d: %v", len(list), err)
	}
	for _, d := range list {
		requireFilled(t, "deployment list", d, "ID", "JobID", "Status", "StatusDescription")
	}
	allocs, _, err := c.Deployments().Allocations(dep.ID, nil)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("deployment allocations %d: %v", len(allocs), err)
	}
	requireFilled(t, "deployment status -verbose (allocs)", allocs[0], "ID", "NodeID", "TaskGroup", "DesiredStatus", "ClientStatus")

	paused, _, err := c.Deployments().Pause(dep.ID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "deployment pause", paused, "DeploymentModifyIndex", "LastIndex")
	resumed, _, err := c.Deployments().Pause(dep.ID, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "deployment resume", resumed, "EvalID", "EvalCreateIndex", "DeploymentModifyIndex")
	promoted, _, err := c.Deployments().PromoteAll(dep.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "deployment promote / job promote", promoted, "EvalID", "EvalCreateIndex", "DeploymentModifyIndex")
	waitDeployment(t, c, "web", "successful")

	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "3"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	third := waitDeployment(t, c, "web", "running")
	failed, _, err := c.Deployments().Fail(third.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "deployment fail", failed, "EvalID", "EvalCreateIndex", "DeploymentModifyIndex")

	// `deployment unblock`: only multiregion deployments block.
	_, _, err = c.Deployments().Unblock(third.ID, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "not blocked") {
		t.Fatalf("deployment unblock: %v", err)
	}
}
