package command

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// healthReporter plays the simulated node's client: until stopped, it
// reports every running-desired alloc of the job that is in a deployment
// and has no health yet as healthy (or unhealthy), through the same
// endpoint a real client uses.
func healthReporter(t *testing.T, a *agent.Agent, job string, healthy bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			// Report, then wait until the job's allocs change (or stop).
			ws := memdb.NewWatchSet()
			if err := reportHealth(a, ws, job, healthy); err != nil {
				t.Errorf("report health: %v", err)
				return
			}
			if ws.WatchCtx(ctx) != nil {
				return
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// reportHealth reports the job's allocs that need it; ws watches them.
func reportHealth(a *agent.Agent, ws memdb.WatchSet, job string, healthy bool) error {
	allocs, err := a.Server().State().AllocsByJob(ws, "default", job, false)
	if err != nil {
		return err
	}
	var updates []*structs.Allocation
	for _, al := range allocs {
		if al.DeploymentID == "" || al.DesiredStatus != structs.AllocDesiredStatusRun ||
			al.DeploymentStatus != nil && al.DeploymentStatus.Healthy != nil {
			continue
		}
		h := healthy
		updates = append(updates, &structs.Allocation{ID: al.ID, ClientStatus: structs.AllocClientStatusRunning,
			DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &h, Timestamp: time.Now()}})
	}
	if len(updates) == 0 {
		return nil
	}
	_, err = server.NodeUpdateAlloc.Call(context.Background(), a.Server(), &structs.AllocClientUpdateArgs{NodeID: simNode.ID, SecretID: simNode.SecretID, Allocs: updates})
	return err
}

// tail is the output from the line starting with from: the deployment's
// final block, which unlike the progress lines before it does not depend
// on how many intermediate states the monitor happened to observe.
func tail(t *testing.T, r result, from string) result {
	t.Helper()
	i := strings.Index(r.stdout, from)
	if i < 0 {
		t.Fatalf("no %q in output:\n%s%s", from, r.stdout, r.stderr)
	}
	r.stdout = r.stdout[i:]
	return r
}

// TestJobRunFollowsDeployment runs a service job whose allocs the node
// reports healthy: `job run` follows the deployment to success (exit 0);
// then a canary update stops at the promotion hint (exit 0).
func TestJobRunFollowsDeployment(t *testing.T) {
	addr, a := schedulingAgentNode(t)
	stop := healthReporter(t, a, "web", true)
	defer stop()
	r := run(t, "job", "run", "-address", addr, "testdata/jobs/web.nomad.hcl")
	for _, want := range []string{"Monitoring deployment", `Task group "web": desired 2, placed 2, healthy 2, unhealthy 0`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	golden(t, "job_run_deploy_successful", tail(t, r, "\n    ID "))

	r = run(t, "job", "run", "-address", addr, "-var", "image=nginx:2", "-var", "canary=1", "testdata/jobs/web.nomad.hcl")
	golden(t, "job_run_deploy_needs_promotion", tail(t, r, "\n    ID "))
}

// TestJobRunDeploymentFails has the node report its allocs unhealthy: the
// deployment fails and `job run` exits 1.
func TestJobRunDeploymentFails(t *testing.T) {
	addr, a := schedulingAgentNode(t)
	stop := healthReporter(t, a, "web", false)
	defer stop()
	golden(t, "job_run_deploy_failed", tail(t, run(t, "job", "run", "-address", addr, "testdata/jobs/web.nomad.hcl"), "\n    ID "))
}

// TestJobRunDeploymentOptOut: -detach and -monitor-deployment=false return
// without waiting for the (never healthy) deployment.
func TestJobRunDeploymentOptOut(t *testing.T) {
	addr, _ := schedulingAgentNode(t)
	r := run(t, "job", "run", "-address", addr, "-monitor-deployment=false", "testdata/jobs/web.nomad.hcl")
	if r.code != 0 || strings.Contains(r.stdout, "Deployed") {
		t.Fatalf("-monitor-deployment=false: %+v", r)
	}
	r = run(t, "job", "run", "-address", addr, "-detach", "-var", "image=nginx:2", "testdata/jobs/web.nomad.hcl")
	if r.code != 0 || strings.Contains(r.stdout, "Deployed") {
		t.Fatalf("-detach: %+v", r)
	}
}
