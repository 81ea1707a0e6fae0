package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestNodeDrain_MigrateWaitsForHealthyReplacement drains a node running
// both allocs of a group with migrate { max_parallel = 1, min_healthy_time
// = "2s" } onto a second client (issue 27). As in Nomad, the second alloc
// may only start migrating once the first one's replacement has its
// health from its client (after min_healthy_time), outside any
// deployment (a replacement placed in an active deployment is judged by
// the update block instead). Before the fix the client decided health only in a
// deployment and the drainer took a running replacement without health as
// healthy: both allocs were stopped about 0.2 s apart.
func TestNodeDrain_MigrateWaitsForHealthyReplacement(t *testing.T) {
	first, c := clientTestAgent(t)
	job := shellJob("web", `sleep 100`)
	job.TaskGroups[0].Count = pointer(2)
	job.TaskGroups[0].Migrate = &api.MigrateStrategy{MaxParallel: pointer(1), MinHealthyTime: pointer(2 * time.Second)}
	// No deployment (update max_parallel = 0): the replacements' health
	// comes from the migrate block alone.
	job.Update = &api.UpdateStrategy{MaxParallel: pointer(0)}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	drained := first.Client().NodeID()
	waitRunningOn(t, c, "web", 2, drained)

	second := clientOnlyAgent(t, first.RPCAddr())
	target := second.Client().NodeID()
	testutil.WaitFor(t, 20*time.Second, "the second client to be ready", func() bool {
		n, _, err := c.Nodes().Info(target, nil)
		return err == nil && n.Status == "ready"
	})
	if _, err := c.Nodes().UpdateDrain(drained, &api.DrainSpec{Deadline: time.Hour}, false, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "the drain to complete", func() bool {
		n, _, err := c.Nodes().Info(drained, nil)
		return err == nil && n.DrainStrategy == nil
	})
	waitRunningOn(t, c, "web", 2, target)

	evals, _, err := c.Jobs().Evaluations("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	var drains []*api.Evaluation
	for _, e := range evals {
		if e.TriggeredBy == "node-drain" {
			drains = append(drains, e)
		}
	}
	slices.SortFunc(drains, func(a, b *api.Evaluation) int { return int(a.CreateIndex) - int(b.CreateIndex) })
	if len(drains) != 2 {
		t.Fatalf("%d node-drain evals, want 2 (one migration at a time)", len(drains))
	}
	t.Logf("drain spacing (second node-drain eval after the first): %s",
		time.Duration(drains[1].CreateTime-drains[0].CreateTime))

	stubs, _, err := c.Jobs().Allocations("web", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var replacements []*api.Allocation
	for _, s := range stubs {
		a, _, err := c.Allocations().Info(s.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.PreviousAllocation != "" {
			replacements = append(replacements, a)
		}
	}
	slices.SortFunc(replacements, func(a, b *api.Allocation) int { return int(a.CreateIndex) - int(b.CreateIndex) })
	if len(replacements) != 2 {
		t.Fatalf("%d replacements, want 2", len(replacements))
	}
	r1 := replacements[0]
	ds := r1.DeploymentStatus
	switch {
	case ds == nil || ds.Healthy == nil:
		t.Fatalf("first replacement %s has no health, yet the second migration began", r1.ID)
	case !*ds.Healthy:
		t.Fatalf("first replacement %s is unhealthy", r1.ID)
	case ds.ModifyIndex >= drains[1].CreateIndex:
		t.Fatalf("second migration began at index %d, before the first replacement's health (index %d)",
			drains[1].CreateIndex, ds.ModifyIndex)
	}
}

// waitRunningOn waits until the job has n running allocs desired to run,
// all on nodeID.
func waitRunningOn(t *testing.T, c *api.Client, job string, n int, nodeID string) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, "the job's allocs to run on "+nodeID, func() (bool, string) {
		stubs, _, err := c.Jobs().Allocations(job, false, nil)
		if err != nil {
			return false, err.Error()
		}
		running := 0
		for _, a := range stubs {
			if a.DesiredStatus != "run" {
				continue
			}
			if a.NodeID != nodeID || a.ClientStatus != "running" {
				return false, allocProgress(stubs)
			}
			running++
		}
		return running == n, allocProgress(stubs)
	})
}
