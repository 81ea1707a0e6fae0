package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestNodePools_CRUDJobsNodesAndAdmission(t *testing.T) {
	a, c := testAgent(t, nil)
	pools, _, err := c.NodePools().List(nil)
	if err != nil || len(pools) != 2 || pools[0].Name != "all" || pools[1].Name != "default" {
		t.Fatalf("built-in pools: %+v %v", pools, err)
	}
	if _, err := c.NodePools().Register(&api.NodePool{Name: "gpu", Description: "GPU nodes", Meta: map[string]string{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	gpu, _, err := c.NodePools().Info("gpu", nil)
	if err != nil || gpu.Description != "GPU nodes" || gpu.Meta["k"] != "v" || gpu.CreateIndex == 0 {
		t.Fatalf("info: %+v %v", gpu, err)
	}
	if _, err := c.NodePools().Register(&api.NodePool{Name: "all"}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("changing a built-in: %v", err)
	}
	if _, err := c.NodePools().Register(&api.NodePool{Name: "bad name"}, nil); err == nil || !strings.Contains(err.Error(), "Name") {
		t.Fatalf("bad name: %v", err)
	}
	// A job in an unknown pool is refused; one in gpu is listed by the pool.
	job := testAPIJob("web")
	job.NodePool = pointer("nowhere")
	if _, _, err := c.Jobs().Register(job, nil); err == nil || !strings.Contains(err.Error(), "NodePool") {
		t.Fatalf("job in an unknown pool: %v", err)
	}
	job.NodePool = pointer("gpu")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	jobs, _, err := c.NodePools().ListJobs("gpu", nil)
	if err != nil || len(jobs) != 1 || jobs[0].ID != "web" || jobs[0].JobSummary == nil {
		t.Fatalf("pool jobs: %+v %v", jobs, err)
	}
	// A node registering into a new pool creates it.
	n := simNode(1, 4000, 8192)
	n.NodePool = "edge"
	if _, err := a.Server().RegisterNode(n); err != nil {
		t.Fatal(err)
	}
	nodes, _, err := c.NodePools().ListNodes("edge", nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("pool nodes: %+v %v", nodes, err)
	}
	if all, _, _ := c.NodePools().ListNodes("all", nil); len(all) != 1 {
		t.Fatalf("all pool nodes: %d", len(all))
	}
	if _, err := c.NodePools().Delete("edge", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("deleting a pool with nodes: %v", err)
	}
	if _, err := c.NodePools().Delete("nowhere", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("deleting an unknown pool: %v", err)
	}
	// The node's own allocations still route next to the pool paths.
	if _, _, err := c.Nodes().Allocations(n.ID, nil); err != nil {
		t.Fatalf("node allocations: %v", err)
	}
}
