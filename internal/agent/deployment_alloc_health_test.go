package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// requireRefused asserts a 400 whose message names want.
func requireRefused(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want a 400", what)
	}
	if !strings.Contains(err.Error(), "400") {
		t.Fatalf("%s: %v, want a 400", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: %v does not name %q", what, err, w)
		}
	}
}

// waitRunningAllocs waits for n running allocs of deployment id and
// answers their IDs.
func waitRunningAllocs(t *testing.T, c *api.Client, id string, n int) []string {
	t.Helper()
	var ids []string
	testutil.WaitFor(t, 20*time.Second, "running allocs of the deployment", func() (bool, string) {
		allocs, _, err := c.Deployments().Allocations(id, nil)
		if err != nil {
			return false, err.Error()
		}
		ids = ids[:0]
		for _, a := range allocs {
			if a.ClientStatus == "running" {
				ids = append(ids, a.ID)
			}
		}
		return len(ids) == n, strings.Join(ids, ",")
	})
	return ids
}

// TestDeploymentAllocHealth_ManualHealth: with `update { health_check =
// "manual" }` the client sets no health, so the deployment waits for the
// operator's verdict (PUT /v1/deployment/allocation-health/:id, through
// the official client): both allocs healthy succeed it; one unhealthy fails
// the next one and auto_revert registers the stable version again. Before
// the endpoint existed such a deployment could never progress.
func TestDeploymentAllocHealth_ManualHealth(t *testing.T) {
	_, c := clientTestAgent(t)
	waitReadyNode(t, c)
	job := shellJob("web", "sleep 300")
	job.TaskGroups[0].Count = pointer(2)
	job.TaskGroups[0].Update = &api.UpdateStrategy{HealthCheck: pointer("manual"), MinHealthyTime: pointer(100 * time.Millisecond),
		MaxParallel: pointer(2), AutoRevert: pointer(true)}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	first := waitDeployment(t, c, "web", "running")
	ids := waitRunningAllocs(t, c, first.ID, 2)
	// Both allocs run, yet no health is set: the deployment waits.
	first, _, err := c.Deployments().Info(first.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := first.TaskGroups["g"]; first.Status != "running" || g.HealthyAllocs != 0 || g.UnhealthyAllocs != 0 {
		t.Fatalf("manual health set by itself: %s", describeDeployment(first))
	}

	_, _, err = c.Deployments().SetAllocHealth(first.ID, []string{"no-such-alloc"}, nil, nil)
	requireRefused(t, "unknown alloc", err, "HealthyAllocationIDs", "no-such-alloc")
	_, _, err = c.Deployments().SetAllocHealth(first.ID, nil, nil, nil)
	requireRefused(t, "no alloc", err, "HealthyAllocationIDs")
	_, _, err = c.Deployments().SetAllocHealth(first.ID, ids[:1], ids[:1], nil)
	requireRefused(t, "alloc both healthy and unhealthy", err, "UnhealthyAllocationIDs", ids[0])
	var out api.DeploymentUpdateResponse
	_, err = c.Raw().Write("/v1/deployment/allocation-health/"+first.ID,
		&api.DeploymentAllocHealthRequest{DeploymentID: "other", HealthyAllocationIDs: ids}, &out, nil)
	requireRefused(t, "body DeploymentID of another deployment", err, "DeploymentID")
	_, _, err = c.Deployments().SetAllocHealth("no-such-deployment", ids, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown deployment: %v, want a 404", err)
	}

	reply, _, err := c.Deployments().SetAllocHealth(first.ID, ids, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "allocation-health", reply, "EvalID", "EvalCreateIndex", "DeploymentModifyIndex", "LastIndex")
	for _, id := range ids {
		a, _, err := c.Allocations().Info(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ds := a.DeploymentStatus; ds == nil || ds.Healthy == nil || !*ds.Healthy || ds.Timestamp.IsZero() {
			t.Fatalf("alloc %s health: %+v", id, ds)
		}
	}
	waitDeployment(t, c, "web", "successful")
	_, _, err = c.Deployments().SetAllocHealth(first.ID, ids, nil, nil)
	requireRefused(t, "terminal deployment", err, "successful")

	// The next version: one alloc unhealthy fails it and reverts to v0.
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": "2"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var second *api.Deployment
	testutil.WaitFor(t, 20*time.Second, "the second deployment", func() (bool, string) {
		second, _, err = c.Jobs().LatestDeployment("web", nil)
		return err == nil && second != nil && second.ID != first.ID, "not yet"
	})
	newIDs := waitRunningAllocs(t, c, second.ID, 2)
	_, _, err = c.Deployments().SetAllocHealth(second.ID, ids[:1], nil, nil)
	requireRefused(t, "alloc of another deployment", err, "HealthyAllocationIDs", ids[0], "not part of deployment")
	if _, _, err := c.Deployments().SetAllocHealth(second.ID, newIDs[:1], newIDs[1:], nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the second deployment failed and the job reverted", func() (bool, string) {
		d, _, err := c.Deployments().Info(second.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		j, _, err := c.Jobs().Info("web", nil)
		if err != nil {
			return false, err.Error()
		}
		return d.Status == "failed" && *j.Version == 2 && j.TaskGroups[0].Tasks[0].Env["V"] == "",
			fmt.Sprintf("%s, job version %d", describeDeployment(d), *j.Version)
	})
}

// TestBodyIDMatchesPath: every write whose URL and body both name the
// object refuses a body naming another one with a 400 naming the field
// (Nomad answers 400 too); before, pause, promote, job evaluate, scale,
// dispatch, node eligibility and variable writes acted on the URL's object
// and silently ignored the body's. Revert, stable, drain, namespace, job
// register and plan, and the ACL policy, token, role, binding-rule and
// auth-method writes already refused it; they are here so none regresses.
func TestBodyIDMatchesPath(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, tc := range []struct {
		path  string
		body  any
		field string
	}{
		{"/v1/deployment/pause/d1", &api.DeploymentPauseRequest{DeploymentID: "d2", Pause: true}, "DeploymentID"},
		{"/v1/deployment/promote/d1", &api.DeploymentPromoteRequest{DeploymentID: "d2", All: true}, "DeploymentID"},
		{"/v1/deployment/allocation-health/d1", &api.DeploymentAllocHealthRequest{DeploymentID: "d2", HealthyAllocationIDs: []string{"a"}}, "DeploymentID"},
		{"/v1/job/web/evaluate", &api.JobEvaluateRequest{JobID: "other"}, "JobID"},
		{"/v1/job/web/scale", &api.ScalingRequest{Count: pointer(int64(1)), Target: map[string]string{"Job": "other", "Group": "g"}}, "Target.Job"},
		{"/v1/job/web/dispatch", &api.JobDispatchRequest{JobID: "other"}, "JobID"},
		{"/v1/job/web/revert", &api.JobRevertRequest{JobID: "other"}, "JobID"},
		{"/v1/job/web/stable", &api.JobStabilityRequest{JobID: "other", Stable: true}, "JobID"},
		{"/v1/node/n1/drain", &api.NodeUpdateDrainRequest{NodeID: "n2"}, "NodeID"},
		{"/v1/node/n1/eligibility", &api.NodeUpdateEligibilityRequest{NodeID: "n2", Eligibility: "eligible"}, "NodeID"},
		{"/v1/namespace/one", &api.Namespace{Name: "two"}, "Name"},
		{"/v1/acl/policy/one", &api.ACLPolicy{Name: "two", Rules: `namespace "default" { policy = "read" }`}, "Name"},
		{"/v1/var/a/b", &api.Variable{Path: "a/c", Items: api.VariableItems{"k": "v"}}, "Path"},
		{"/v1/job/web", &api.JobRegisterRequest{Job: &api.Job{ID: pointer("other")}}, "Job.ID"},
		{"/v1/job/web/plan", &api.JobPlanRequest{Job: &api.Job{ID: pointer("other")}}, "Job.ID"},
		{"/v1/acl/token/t1", &api.ACLToken{AccessorID: "t2", Type: "client"}, "AccessorID"},
		{"/v1/acl/role/r1", &api.ACLRole{ID: "r2", Name: "r"}, "ID"},
		{"/v1/acl/binding-rule/b1", &api.ACLBindingRule{ID: "b2", AuthMethod: "m"}, "ID"},
		{"/v1/acl/auth-method/one", &api.ACLAuthMethod{Name: "two", Type: "OIDC"}, "Name"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			_, err := c.Raw().Write(tc.path, tc.body, nil, nil)
			requireRefused(t, tc.path, err, tc.field+":")
		})
	}
}
