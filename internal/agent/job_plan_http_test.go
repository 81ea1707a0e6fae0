package agent

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestJobPlan_DiffAndInPlaceVsDestructive(t *testing.T) {
	a, c := runningJob(t)
	job, _, _ := c.Jobs().Info("web", nil)
	before := a.Server().State().LatestIndex()

	// Count only: one new placement; the existing allocs move to the new
	// version in place, never destructively.
	job.TaskGroups[0].Count = pointer(3)
	plan, _, err := c.Jobs().Plan(job, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := plan.Diff.TaskGroups[0]
	if plan.Diff.Type != "Edited" || tg.Updates["create"] != 1 || tg.Updates["in-place update"] != 2 || tg.Updates["create/destroy update"] != 0 {
		t.Fatalf("count plan: diff %s updates %v", plan.Diff.Type, tg.Updates)
	}
	if d := plan.Annotations.DesiredTGUpdates["web"]; d.Place != 1 || d.DestructiveUpdate != 0 {
		t.Fatalf("annotations %+v", d)
	}

	// Task config change: destructive, annotated on the task; the default
	// update strategy (max_parallel 1) replaces one alloc at a time.
	job.TaskGroups[0].Count = pointer(2)
	job.TaskGroups[0].Tasks[0].Config["image"] = "nginx:1.27"
	plan, _, err = c.Jobs().Plan(job, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	task := plan.Diff.TaskGroups[0].Tasks[0]
	if d := plan.Annotations.DesiredTGUpdates["web"]; d.DestructiveUpdate != 1 || d.Ignore != 1 || len(task.Annotations) == 0 || task.Annotations[0] != "forces create/destroy update" {
		t.Fatalf("destructive plan: %+v annotations %v", plan.Annotations.DesiredTGUpdates["web"], task.Annotations)
	}

	// A job that cannot fit reports failed placements and the blocked eval.
	big := testAPIJob("big")
	big.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100000), MemoryMB: pointer(128)}
	plan, _, err = c.Jobs().Plan(big, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Diff.Type != "Added" || plan.FailedTGAllocs["web"] == nil || len(plan.CreatedEvals) != 1 {
		t.Fatalf("unfittable plan: diff %s failed %v created %d", plan.Diff.Type, plan.FailedTGAllocs, len(plan.CreatedEvals))
	}
	if after := a.Server().State().LatestIndex(); after != before {
		t.Fatalf("plan wrote to state: index %d -> %d", before, after)
	}
	if _, _, err := c.Jobs().Info("big", nil); err == nil {
		t.Fatal("planned job was registered")
	}
}
