package command

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// schedulingAgent starts an agent with the real schedulers and one
// simulated node with a healthy docker driver.
func schedulingAgent(t *testing.T) string {
	addr, _ := schedulingAgentNode(t)
	return addr
}

// simNode is the simulated node; its SecretID lets tests report alloc
// health the way its client would.
var simNode = &structs.Node{ID: "22222222-0000-4000-8000-000000000001", SecretID: "22222222-0000-4000-8000-00000000beef",
	Name: "sim-1", Datacenter: "dc1", Status: structs.NodeStatusReady, Attributes: map[string]string{"driver.docker": "1"},
	Drivers:       map[string]*structs.DriverInfo{"docker": {Detected: true, Healthy: true}},
	NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: 4000}, MemoryMB: 8192, DiskMB: 50000}}

// schedulingAgentNode is schedulingAgent also returning the agent, for
// tests that act as the node's client through the server's endpoints.
func schedulingAgentNode(t *testing.T) (string, *agent.Agent) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0 // free ports, picked by the listeners
	cfg.Client.Enabled = false
	a, err := agent.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	if err := a.Server().WaitUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Server().RegisterNode(simNode.Copy()); err != nil {
		t.Fatal(err)
	}
	return "http://" + a.HTTPAddr(), a
}

// TestJobPlan_ChangedFileShowsDiffAndUpdateKind runs a Nomad HCL2 job file
// unchanged, then plans two edits of it: a count change (in place) and an
// image change (create/destroy), as `drover job plan` shows them.
func TestJobPlan_ChangedFileShowsDiffAndUpdateKind(t *testing.T) {
	addr := schedulingAgent(t)
	if r := run(t, "job", "run", "-address", addr, "-detach", "testdata/jobs/example.nomad.hcl"); r.code != 0 {
		t.Fatalf("job run: %+v", r)
	}
	// Placed: re-planning the same file changes nothing (exit code 0).
	testutil.WaitFor(t, 10*time.Second, "the job to be placed", func() bool {
		return run(t, "job", "plan", "-address", addr, "testdata/jobs/example.nomad.hcl").code == 0
	})
	golden(t, "job_plan_unchanged", run(t, "job", "plan", "-address", addr, "testdata/jobs/example.nomad.hcl"))
	golden(t, "job_plan_count_in_place", run(t, "job", "plan", "-address", addr, "testdata/jobs/example-count3.nomad.hcl"))
	golden(t, "job_plan_image_destructive", run(t, "job", "plan", "-address", addr, "testdata/jobs/example-image.nomad.hcl"))

	// Two more versions, then each version's change from the one before.
	for _, f := range []string{"example-count3.nomad.hcl", "example-image.nomad.hcl"} {
		if r := run(t, "job", "run", "-address", addr, "-detach", "testdata/jobs/"+f); r.code != 0 {
			t.Fatalf("job run %s: %+v", f, r)
		}
	}
	golden(t, "job_history_diffs", run(t, "job", "history", "-address", addr, "-p", "example-hcl"))
	r := run(t, "job", "history", "-address", addr, "-p", "-json", "example-hcl")
	if r.code != 0 || !strings.Contains(r.stdout, `"Diffs": [`) || !strings.Contains(r.stdout, `"Versions": [`) {
		t.Fatalf("job history -p -json: %+v", r)
	}
}
