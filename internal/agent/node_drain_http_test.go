package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// TestEvalTrigger_NodeDrain_AllocsMigrateWithOneEvalPerJob drains a node
// running allocs of two jobs: each job gets exactly one node-drain eval, its allocs
// move to the other node, and the drain completes with the node left
// ineligible.
func TestEvalTrigger_NodeDrain_AllocsMigrateWithOneEvalPerJob(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	drained := simNode(1, 8000, 16384)
	if _, err := a.Server().RegisterNode(drained); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"web", "api"} {
		job := testAPIJob(id)
		job.TaskGroups[0].Count = pointer(2)
		job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(200), MemoryMB: pointer(128)}
		job.TaskGroups[0].Migrate = &api.MigrateStrategy{MaxParallel: pointer(2)}
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
		waitAllocs(t, c, id, 2)
	}
	if _, err := a.Server().RegisterNode(simNode(2, 8000, 16384)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Nodes().UpdateDrain(drained.ID, &api.DrainSpec{Deadline: time.Hour}, false, nil); err != nil {
		t.Fatal(err)
	}
	var node *api.Node
	testutil.WaitFor(t, 15*time.Second, "the drain to complete with every alloc moved", func() bool {
		var err error
		node, _, err = c.Nodes().Info(drained.ID, nil)
		return err == nil && node.DrainStrategy == nil && onlyOn(t, c, "web", "api", simNode(2, 0, 0).ID)
	})
	if node.SchedulingEligibility != "ineligible" {
		t.Fatalf("drained node eligibility %q", node.SchedulingEligibility)
	}
	for _, id := range []string{"web", "api"} {
		evals, _, _ := c.Jobs().Evaluations(id, nil)
		// migrate.max_parallel covers both allocs: one drain step,
		// so exactly one node-drain eval per job on the node.
		if n := countTrigger(evals, "node-drain"); n != 1 {
			t.Errorf("job %s has %d node-drain evals, want 1", id, n)
		}
	}
}

func onlyOn(t *testing.T, c *api.Client, job1, job2, nodeID string) bool {
	for _, job := range []string{job1, job2} {
		allocs, _, err := c.Jobs().Allocations(job, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		live := 0
		for _, a := range allocs {
			if a.DesiredStatus == "run" {
				if a.NodeID != nodeID {
					return false
				}
				live++
			}
		}
		if live != 2 {
			return false
		}
	}
	return true
}

func countTrigger(evals []*api.Evaluation, trigger string) int {
	n := 0
	for _, e := range evals {
		if e.TriggeredBy == trigger {
			n++
		}
	}
	return n
}

func TestNodeEligibility_ToggleAndRejectWhileDraining(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	n := simNode(1, 1000, 1000)
	if _, err := a.Server().RegisterNode(n); err != nil {
		t.Fatal(err)
	}
	// A batch alloc keeps the drain open until its deadline.
	batch := testAPIJob("batch")
	batch.Type = pointer("batch")
	batch.TaskGroups[0].Count = pointer(1)
	batch.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(64)}
	if _, _, err := c.Jobs().Register(batch, nil); err != nil {
		t.Fatal(err)
	}
	waitAllocs(t, c, "batch", 1)
	if _, err := c.Nodes().ToggleEligibility(n.ID, false, nil); err != nil {
		t.Fatal(err)
	}
	info, _, _ := c.Nodes().Info(n.ID, nil)
	if info.SchedulingEligibility != "ineligible" {
		t.Fatalf("eligibility %q", info.SchedulingEligibility)
	}
	if _, err := c.Nodes().UpdateDrain(n.ID, &api.DrainSpec{Deadline: time.Minute}, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Nodes().ToggleEligibility(n.ID, true, nil); err == nil || !strings.Contains(err.Error(), "draining") {
		t.Fatalf("eligible while draining: %v", err)
	}
	if _, err := c.Nodes().UpdateDrain(n.ID, nil, true, nil); err != nil {
		t.Fatal(err)
	}
	info, _, _ = c.Nodes().Info(n.ID, nil)
	if info.DrainStrategy != nil || info.SchedulingEligibility != "eligible" {
		t.Fatalf("after cancel: drain %v eligibility %q", info.DrainStrategy, info.SchedulingEligibility)
	}
}

// TestNodeEligibility_EligibleAgainGetsNodeUpdateEvals: a system job
// registered while its nodes were ineligible reaches each of them once it
// is made eligible again, by `node eligibility -enable` or by ending a
// drain with MarkEligible: the transition writes node-update evals (as a
// node becoming ready does) and the reply names them, as in Nomad.
func TestNodeEligibility_EligibleAgainGetsNodeUpdateEvals(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	toggled, drained := simNode(1, 8000, 16384), simNode(2, 8000, 16384)
	for _, n := range []*structs.Node{toggled, drained} {
		if _, err := a.Server().RegisterNode(n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Nodes().ToggleEligibility(toggled.ID, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Nodes().UpdateDrain(drained.ID, &api.DrainSpec{Deadline: time.Hour}, false, nil); err != nil {
		t.Fatal(err)
	}
	sys := testAPIJob("sys")
	sys.Type = pointer("system")
	sys.TaskGroups[0].Count = pointer(1)
	reg, _, err := c.Jobs().Register(sys, nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 15*time.Second, "the system job's eval to finish", func() bool {
		e, _, err := c.Evaluations().Info(reg.EvalID, nil)
		return err == nil && e.Status != "pending"
	})
	waitAllocs(t, c, "sys", 0)

	elig, err := c.Nodes().ToggleEligibility(toggled.ID, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(elig.EvalIDs) != 1 || elig.EvalCreateIndex == 0 {
		t.Fatalf("eligibility reply: EvalIDs %v EvalCreateIndex %d, want the system job's node-update eval", elig.EvalIDs, elig.EvalCreateIndex)
	}
	waitAllocs(t, c, "sys", 1)

	undrain, err := c.Nodes().UpdateDrain(drained.ID, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(undrain.EvalIDs) != 1 {
		t.Fatalf("drain cancel with MarkEligible: EvalIDs %v, want the system job's node-update eval", undrain.EvalIDs)
	}
	waitAllocs(t, c, "sys", 2)
	for _, id := range append(elig.EvalIDs, undrain.EvalIDs...) {
		e, _, err := c.Evaluations().Info(id, nil)
		if err != nil || e.TriggeredBy != "node-update" || e.JobID != "sys" {
			t.Errorf("eval %s: %+v, %v", id, e, err)
		}
	}
}
