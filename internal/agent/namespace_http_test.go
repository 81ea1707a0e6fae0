package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

func TestNamespaces_CRUDThroughOfficialClient(t *testing.T) {
	_, c := testAgent(t, nil)
	list, _, err := c.Namespaces().List(nil)
	if err != nil || len(list) != 1 || list[0].Name != "default" {
		t.Fatalf("initial list: %v %+v", err, list)
	}
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod", Description: "production", Meta: map[string]string{"team": "a"}}, nil); err != nil {
		t.Fatal(err)
	}
	ns, _, err := c.Namespaces().Info("prod", nil)
	if err != nil || ns.Description != "production" || ns.Meta["team"] != "a" || ns.CreateIndex == 0 {
		t.Fatalf("info: %v %+v", err, ns)
	}
	if got, _, _ := c.Namespaces().PrefixList("pr", nil); len(got) != 1 || got[0].Name != "prod" {
		t.Fatalf("prefix list: %+v", got)
	}
	if _, _, err := c.Namespaces().Info("nope", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown namespace: %v", err)
	}

	job := testAPIJob("web")
	job.Namespace = pointer("prod")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register in prod: %v", err)
	}
	// A namespace with jobs cannot be deleted; nor can default.
	if _, err := c.Namespaces().Delete("prod", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("delete with jobs: %v", err)
	}
	if _, err := c.Namespaces().Delete("default", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("delete default: %v", err)
	}
	if _, _, err := c.Jobs().Deregister("web", true, &api.WriteOptions{Namespace: "prod"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Delete("prod", nil); err != nil {
		t.Fatalf("delete empty namespace: %v", err)
	}
	if _, err := c.Namespaces().Delete("prod", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("delete twice: %v", err)
	}
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "bad name!"}, nil); err == nil || !strings.Contains(err.Error(), "Name") {
		t.Fatalf("invalid name: %v", err)
	}
}

// The server refuses jobs it cannot hold, with a 400 naming the field.
func TestJobRegister_RefusesHostileJobs(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) { cfg.Server.JobMaxCount = 50 })
	cases := map[string]struct {
		mutate func(*api.Job)
		field  string
	}{
		"unknown region":    {func(j *api.Job) { j.Region = pointer("mars") }, "Region"},
		"unknown namespace": {func(j *api.Job) { j.Namespace = pointer("nope") }, "Namespace"},
		"malformed version": {func(j *api.Job) {
			j.Constrain(api.NewConstraint("${attr.kernel.version}", "version", ">>>1"))
		}, "Constraints[1].RTarget"},
		"task named ..":    {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Name = ".." }, "Tasks[0].Name"},
		"task named .":     {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Name = "." }, "Tasks[0].Name"},
		"task named alloc": {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Name = "alloc" }, "Tasks[0].Name"},
		"task with slash":  {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Name = "a/../../b" }, "Tasks[0].Name"},
		"task with NUL":    {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Name = "a\x00b" }, "Tasks[0].Name"},
		"count above max":  {func(j *api.Job) { j.TaskGroups[0].Count = pointer(51) }, "TaskGroups[0].Count"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := testAPIJob("hostile")
			tc.mutate(job)
			_, _, err := c.Jobs().Register(job, nil)
			if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("register: %v, want a 400 naming %s", err, tc.field)
			}
		})
	}
	if jobs, _, _ := c.Jobs().List(&api.QueryOptions{Namespace: "*"}); len(jobs) != 0 {
		t.Fatalf("a refused job was stored: %d jobs", len(jobs))
	}
	_ = a
}
