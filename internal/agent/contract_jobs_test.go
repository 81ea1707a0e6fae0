package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// deployedJob runs job "web" (raw_exec, one alloc) on a dev agent with a
// client, as `job run` does, and waits for its deployment to succeed.
func deployedJob(t *testing.T) (*api.Client, *api.JobRegisterResponse) {
	t.Helper()
	_, c := clientTestAgent(t)
	waitReadyNode(t, c)
	job := shellJob("web", "sleep 300")
	job.TaskGroups[0].Update = &api.UpdateStrategy{MinHealthyTime: pointer(100 * time.Millisecond)}
	reg, _, err := c.Jobs().RegisterOpts(job, &api.RegisterOptions{
		Submission: &api.JobSubmission{Source: `job "web" {}`, Format: "hcl2", VariableFlags: map[string]string{"x": "1"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitDeployment(t, c, "web", "successful")
	return c, reg
}

// waitReadyNode waits for the agent's own client node, so a job
// registered next is placed by its register eval.
func waitReadyNode(t *testing.T, c *api.Client) *api.NodeListStub {
	t.Helper()
	var n *api.NodeListStub
	testutil.WaitFor(t, 20*time.Second, "a ready node", func() (bool, string) {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil || len(nodes) == 0 {
			return false, "no node"
		}
		n = nodes[0]
		return n.Status == "ready", n.Status
	})
	return n
}

func waitDeployment(t *testing.T, c *api.Client, jobID, status string) *api.Deployment {
	t.Helper()
	var d *api.Deployment
	testutil.WaitFor(t, 20*time.Second, "job "+jobID+" deployment "+status, func() (bool, string) {
		var err error
		if d, _, err = c.Jobs().LatestDeployment(jobID, nil); err != nil || d == nil {
			return false, "no deployment"
		}
		return d.Status == status, describeDeployment(d)
	})
	return d
}

// describeDeployment is what a stalled wait reports: the status and each
// group's counts, so a failure says which step the rollout stopped at.
func describeDeployment(d *api.Deployment) string {
	out := fmt.Sprintf("%s (%s), version %d, modify index %d", d.Status, d.StatusDescription, d.JobVersion, d.ModifyIndex)
	for name, g := range d.TaskGroups {
		out += fmt.Sprintf("; group %s: desired %d, placed %d, healthy %d, unhealthy %d, canaries %d/%d, promoted %v",
			name, g.DesiredTotal, g.PlacedAllocs, g.HealthyAllocs, g.UnhealthyAllocs, len(g.PlacedCanaries), g.DesiredCanaries, g.Promoted)
	}
	return out
}

// TestContract_JobRunStatusInspectAllocs: `job run` (and its eval and
// deployment monitor), `job status` (list and one job), `job inspect`
// (-hcl), `job allocs`, `job deployments`.
func TestContract_JobRunStatusInspectAllocs(t *testing.T) {
	c, reg := deployedJob(t)
	requireFilled(t, "job run", reg, "EvalID", "EvalCreateIndex", "JobModifyIndex")
	ev, _, err := c.Evaluations().Info(reg.EvalID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job run (eval monitor)", ev, "ID", "Status", "TriggeredBy", "JobID", "Type", "Priority", "DeploymentID", "CreateTime", "ModifyTime")
	evAllocs, _, err := c.Evaluations().Allocations(reg.EvalID, nil)
	if err != nil || len(evAllocs) != 1 {
		t.Fatalf("eval allocations %d: %v", len(evAllocs), err)
	}
	requireFilled(t, "job run (eval monitor)", evAllocs[0], "ID", "NodeID", "TaskGroup", "ClientStatus", "DesiredStatus")
	dep, _, err := c.Jobs().LatestDeployment("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job run (deployment monitor)", dep, "ID", "JobID", "Status", "StatusDescription",
		"TaskGroups[g].DesiredTotal", "TaskGroups[g].PlacedAllocs", "TaskGroups[g].HealthyAllocs", "TaskGroups[g].RequireProgressBy")

	stubs, _, err := c.Jobs().List(nil)
	if err != nil || len(stubs) != 1 {
		t.Fatalf("job list %d: %v", len(stubs), err)
	}
	requireFilled(t, "job status", stubs[0], "ID", "Name", "Type", "Priority", "Status", "SubmitTime", "Namespace",
		"Datacenters", "JobSummary.Summary[g].Running")

	job, _, err := c.Jobs().Info("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job status <id>", job, "ID", "Name", "SubmitTime", "Type", "Priority", "Datacenters", "Namespace", "NodePool", "Status",
		"TaskGroups[0].Name", "TaskGroups[0].Count", "TaskGroups[0].Tasks[0].Driver", "CreateIndex", "ModifyIndex", "JobModifyIndex")
	summary, _, err := c.Jobs().Summary("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job status <id>", summary, "JobID", "Namespace", "Summary[g].Running", "CreateIndex", "ModifyIndex")
	allocs, _, err := c.Jobs().Allocations("web", true, nil)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("job allocs %d: %v", len(allocs), err)
	}
	requireFilled(t, "job status <id> / job allocs", allocs[0], "ID", "EvalID", "Name", "NodeID", "NodeName", "JobID", "TaskGroup",
		"DesiredStatus", "ClientStatus", "CreateTime", "ModifyTime", "CreateIndex", "ModifyIndex", "TaskStates[t].State", "DeploymentStatus.Healthy")
	evals, _, err := c.Jobs().Evaluations("web", nil)
	if err != nil || len(evals) == 0 {
		t.Fatalf("job evaluations: %v", err)
	}
	requireFilled(t, "job status <id> (placement failures)", evals[0], "ID", "Status", "TriggeredBy")

	deps, _, err := c.Jobs().Deployments("web", true, nil)
	if err != nil || len(deps) != 1 {
		t.Fatalf("job deployments %d: %v", len(deps), err)
	}
	requireFilled(t, "job deployments", deps[0], "ID", "JobID", "Status", "StatusDescription", "JobCreateIndex", "CreateIndex", "ModifyIndex")

	sub, _, err := c.Jobs().Submission("web", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job inspect -hcl", sub, "Source", "Format", "VariableFlags[x]")
}

// TestContract_JobChanges: `job plan`, `job validate`, `job history`
// (-p), `job tag apply/unset`, `job revert`, `job eval`, `job scale`,
// `job scaling-events`, `job stop`.
func TestContract_JobChanges(t *testing.T) {
	c, _ := deployedJob(t)
	scale, _, err := c.Jobs().ScaleWithRequest("web", &api.ScalingRequest{
		Count: pointer(int64(2)), Target: map[string]string{"Job": "web", "Group": "g"}, Message: "more",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job scale", scale, "EvalID", "EvalCreateIndex", "JobModifyIndex")
	// The scale's deployment counts the kept alloc only once the client
	// reports it healthy again (after min_healthy_time), then succeeds.
	testutil.WaitFor(t, 20*time.Second, "the scaled version's deployment to succeed", func() (bool, string) {
		d, _, err := c.Jobs().LatestDeployment("web", nil)
		if err != nil || d == nil {
			return false, "no deployment"
		}
		return d.JobVersion == 1 && d.Status == "successful", describeDeployment(d)
	})
	status, _, err := c.Jobs().ScaleStatus("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job scaling-events / job scale (status)", status, "JobID", "Namespace", "JobCreateIndex", "JobModifyIndex",
		"TaskGroups[g].Desired", "TaskGroups[g].Placed", "TaskGroups[g].Running", "TaskGroups[g].Healthy",
		"TaskGroups[g].Events[0].Count", "TaskGroups[g].Events[0].PreviousCount", "TaskGroups[g].Events[0].Message",
		"TaskGroups[g].Events[0].EvalID", "TaskGroups[g].Events[0].Time")

	job, _, _ := c.Jobs().Info("web", nil)
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "2"}

	plan, _, err := c.Jobs().Plan(job, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job plan", plan, "JobModifyIndex", "Diff.Type", "Diff.ID", "Diff.TaskGroups[0].Tasks[0].Annotations",
		"Annotations.DesiredTGUpdates[g].DestructiveUpdate")
	val, _, err := c.Jobs().Validate(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job validate", val, "DriverConfigValidated")

	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Jobs().TagVersion("web", 0, "first", "the first version", nil); err != nil {
		t.Fatal(err)
	}
	versions, diffs, _, err := c.Jobs().Versions("web", true, nil)
	if err != nil || len(versions) != 3 || len(diffs) != 2 { // the scale made version 1
		t.Fatalf("job history: %d versions %d diffs: %v", len(versions), len(diffs), err)
	}
	requireFilled(t, "job history", versions[0], "Version", "SubmitTime")
	requireFilled(t, "job history", versions[2], "SubmitTime", "VersionTag.Name", "VersionTag.Description", "VersionTag.TaggedTime")
	requireFilled(t, "job history -p", diffs[0], "Type", "TaskGroups[0].Tasks[0].Fields")
	if _, err := c.Jobs().UntagVersion("web", "first", nil); err != nil {
		t.Fatal(err)
	}

	rev, _, err := c.Jobs().Revert("web", 0, nil, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job revert", rev, "EvalID", "EvalCreateIndex", "JobModifyIndex")
	evalID, wm, err := c.Jobs().EvaluateWithOpts("web", api.EvalOptions{ForceReschedule: true}, nil)
	if err != nil || evalID == "" || wm.LastIndex == 0 {
		t.Fatalf("job eval: %q %v", evalID, err)
	}
	stopEval, _, err := c.Jobs().Deregister("web", false, nil)
	if err != nil || stopEval == "" {
		t.Fatalf("job stop: %q %v", stopEval, err)
	}

	// `job start`: the stopped job, then its latest version that was not
	// stopped, registered again.
	stopped, _, err := c.Jobs().Info("web", nil)
	if err != nil || !*stopped.Stop {
		t.Fatalf("job start: stopped job %v", err)
	}
	versions, _, _, err = c.Jobs().Versions("web", false, nil)
	if err != nil || len(versions) == 0 || !*versions[0].Stop || *versions[1].Stop {
		t.Fatalf("job start: versions %d: %v", len(versions), err)
	}
	restart := versions[1]
	restart.Stop = pointer(false)
	start, _, err := c.Jobs().Register(restart, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job start", start, "EvalID", "EvalCreateIndex", "JobModifyIndex")
}

// TestContract_JobPeriodicAndDispatch: `job periodic force` and
// `job dispatch`, each finding its parent through the job list filter.
func TestContract_JobPeriodicAndDispatch(t *testing.T) {
	_, c := testAgent(t, nil)
	periodic := testAPIJob("nightly")
	periodic.Type = pointer("batch")
	periodic.Periodic = &api.PeriodicConfig{Spec: pointer("0 3 * * *"), SpecType: pointer("cron")}
	param := testAPIJob("render")
	param.Type = pointer("batch")
	param.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "optional", MetaOptional: []string{"color"}}
	for _, j := range []*api.Job{periodic, param} {
		if _, _, err := c.Jobs().Register(j, nil); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := c.Jobs().List(&api.QueryOptions{Filter: "Periodic is not nil"})
	if err != nil || len(list) != 1 {
		t.Fatalf("periodic list %d: %v", len(list), err)
	}
	requireFilled(t, "job periodic force (list)", list[0], "ID", "Periodic", "JobSummary.Namespace")
	evalID, wm, err := c.Jobs().PeriodicForce("nightly", nil)
	if err != nil || evalID == "" || wm.LastIndex == 0 {
		t.Fatalf("job periodic force: %q %v", evalID, err)
	}
	list, _, err = c.Jobs().List(&api.QueryOptions{Filter: "ParameterizedJob is not nil"})
	if err != nil || len(list) != 1 {
		t.Fatalf("parameterized list %d: %v", len(list), err)
	}
	requireFilled(t, "job dispatch (list)", list[0], "ID", "ParameterizedJob", "JobSummary.Namespace")
	disp, _, err := c.Jobs().Dispatch("render", map[string]string{"color": "red"}, []byte("hello"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job dispatch", disp, "DispatchedJobID", "EvalID", "EvalCreateIndex", "JobCreateIndex")
	child, _, err := c.Jobs().Info(disp.DispatchedJobID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "job dispatch (child)", child, "ParentID", "Dispatched", "Meta[color]", "Payload")
}
