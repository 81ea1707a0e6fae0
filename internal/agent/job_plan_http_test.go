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

// TestJobPlan_ContextualDiff is what `job plan -verbose` prints: Nomad's
// plan diff is always contextual (the CLI hides "None" entries unless
// -verbose), so unchanged fields and unchanged sets inside a changed block
// come back as "None" beside the changed ones. Unchanged blocks, and
// unchanged sets of the job itself (Datacenters), stay out.
func TestJobPlan_ContextualDiff(t *testing.T) {
	_, c := testAgent(t, nil)
	job := testAPIJob("svc")
	job.TaskGroups[0].Tasks[0].Services = []*api.Service{{Name: "svc", Provider: "nomad", Tags: []string{"a", "b"}, Address: "a.example"}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	job.TaskGroups[0].Tasks[0].Services[0].Address = "b.example"
	job.TaskGroups[0].Tasks[0].Config["image"] = "nginx:1.27"
	plan, _, err := c.Jobs().Plan(job, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	task := plan.Diff.TaskGroups[0].Tasks[0]
	config, svc := objectNamed(task.Objects, "Config"), objectNamed(task.Objects, "Service")
	if config == nil || svc == nil || svc.Type != "Edited" {
		t.Fatalf("task objects %s", mustJSON(task.Objects))
	}
	fields := fieldKinds(config.Fields)
	if fields["image"] != "Edited nginx:1.25->nginx:1.27" || fields["ports[0]"] != "None http->http" {
		t.Fatalf("Config fields %v", fields)
	}
	fields = fieldKinds(svc.Fields)
	if fields["Address"] != "Edited a.example->b.example" || fields["Name"] != "None svc->svc" || fields["Provider"] != "None nomad->nomad" {
		t.Fatalf("Service fields %v", fields)
	}
	tags := objectNamed(svc.Objects, "Tags")
	if tags == nil || tags.Type != "None" || len(tags.Fields) != 2 || tags.Fields[0].Type != "None" {
		t.Fatalf("Service objects %s", mustJSON(svc.Objects))
	}
	for _, o := range plan.Diff.Objects {
		if o.Type == "None" {
			t.Fatalf("unchanged job-level object listed: %s", mustJSON(o))
		}
	}
	if objectNamed(plan.Diff.TaskGroups[0].Objects, "RestartPolicy") != nil {
		t.Fatal("an unchanged block is listed")
	}
}

func objectNamed(os []*api.ObjectDiff, name string) *api.ObjectDiff {
	for _, o := range os {
		if o.Name == name {
			return o
		}
	}
	return nil
}

func fieldKinds(fs []*api.FieldDiff) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		out[f.Name] = f.Type + " " + f.Old + "->" + f.New
	}
	return out
}
