package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// simNode is a simulated client node (no client agent yet).
func simNode(i int, cpu, mem int64) *structs.Node {
	n := mock.Node(fmt.Sprintf("11111111-0000-4000-8000-%012d", i))
	n.Name, n.SecretID = fmt.Sprintf("sim-%d", i), ""
	n.Attributes = map[string]string{"kernel.name": "linux", "driver.docker": "1"}
	delete(n.Drivers, "exec")
	n.NodeResources = &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: cpu}, MemoryMB: mem, DiskMB: 50_000}
	return n
}

func allSchedulers(c *config.Config) { c.Server.EnabledSchedulers = nil }

// waitAllocs polls the job's allocations through the API until n are
// running-desired, or fails.
func waitAllocs(t *testing.T, c *api.Client, job string, n int) []*api.AllocationListStub {
	t.Helper()
	var live []*api.AllocationListStub
	testutil.WaitFor(t, 15*time.Second, fmt.Sprintf("job %s to have %d live allocs", job, n), func() (bool, string) {
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
		return len(live) == n, fmt.Sprintf("%d live", len(live))
	})
	return live
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
	testutil.WaitFor(t, 15*time.Second, "the eval to complete", func() bool {
		eval, _, err = c.Evaluations().Info(resp.EvalID, nil)
		return err == nil && eval.Status == "complete"
	})
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
