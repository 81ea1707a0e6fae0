package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
)

// simNode is a simulated client node (no client agent yet).
func simNode(i int, cpu, mem int64) *structs.Node {
	return &structs.Node{
		ID: fmt.Sprintf("11111111-0000-4000-8000-%012d", i), Name: fmt.Sprintf("sim-%d", i), Datacenter: "dc1",
		Status: structs.NodeStatusReady, Attributes: map[string]string{"kernel.name": "linux", "driver.docker": "1"},
		Drivers:       map[string]*structs.DriverInfo{"docker": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: cpu}, MemoryMB: mem, DiskMB: 50_000},
	}
}

func allSchedulers(c *config.Config) { c.Server.EnabledSchedulers = nil }

// waitAllocs polls the job's allocations through the API until n are
// running-desired, or fails.
func waitAllocs(t *testing.T, c *api.Client, job string, n int) []*api.AllocationListStub {
	t.Helper()
	var live []*api.AllocationListStub
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		allocs, _, err := c.Jobs().Allocations(job, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		live = live[:0]
		for _, a := range allocs {
			if a.DesiredStatus == "run" {
				live = append(live, a)
			}
		}
		if len(live) == n {
			return live
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("job %s has %d live allocs, want %d", job, len(live), n)
	return nil
}

// TestScheduling_ThroughHTTP_PlacesThenBlocksThenUnblocks drives a dev
// agent with the real schedulers through the official client: a job lands
// on simulated nodes; a job too big for them leaves a blocked eval with
// failed-placement metrics, and is placed once a big node registers.
func TestScheduling_ThroughHTTP_PlacesThenBlocksThenUnblocks(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	for i := 1; i <= 2; i++ {
		if _, err := a.Server().RegisterNode(simNode(i, 2000, 4096)); err != nil {
			t.Fatal(err)
		}
	}
	job := testAPIJob("web")
	job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(500), MemoryMB: pointer(256)}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	waitAllocs(t, c, "web", 3)

	big := testAPIJob("big")
	big.TaskGroups[0].Count = pointer(1)
	big.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(6000), MemoryMB: pointer(256)}
	resp, _, err := c.Jobs().Register(big, nil)
	if err != nil {
		t.Fatal(err)
	}
	var eval *api.Evaluation
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if eval, _, err = c.Evaluations().Info(resp.EvalID, nil); err == nil && eval.Status == "complete" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if eval.BlockedEval == "" || eval.FailedTGAllocs["web"] == nil || eval.FailedTGAllocs["web"].DimensionExhausted["cpu"] == 0 {
		t.Fatalf("eval %+v: want a blocked eval and cpu exhaustion in FailedTGAllocs", eval)
	}
	if _, err := a.Server().RegisterNode(simNode(3, 8000, 8192)); err != nil {
		t.Fatal(err)
	}
	placed := waitAllocs(t, c, "big", 1)
	if placed[0].NodeID != simNode(3, 0, 0).ID {
		t.Fatalf("big placed on %s", placed[0].NodeID)
	}
}
