package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestJobScaleStatus_CountsAndEvents(t *testing.T) {
	_, c := runningJob(t) // "web": group "web" of 2, placed on two nodes
	endDeployment(t, c, "web")
	if _, _, err := c.Jobs().Scale("web", "web", pointer(3), "more please", false, map[string]any{"by": "test"}, nil); err != nil {
		t.Fatal(err)
	}
	status, _, err := c.Jobs().ScaleStatus("web", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := status.TaskGroups["web"]
	if status.JobID != "web" || status.Namespace != "default" || g.Desired != 3 || g.Placed < 2 {
		t.Fatalf("scale status: %+v", status)
	}
	if len(g.Events) != 1 || *g.Events[0].Count != 3 || g.Events[0].PreviousCount != 2 || g.Events[0].Message != "more please" ||
		g.Events[0].EvalID == nil || g.Events[0].Meta["by"] != "test" || g.Events[0].Time == 0 {
		t.Fatalf("events: %+v", g.Events)
	}
	if _, _, err := c.Jobs().ScaleStatus("nope", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown job: %v", err)
	}
}

func TestJobSubmission_StoredPerVersion(t *testing.T) {
	_, c := testAgent(t, nil)
	src := `job "web" { group "web" { task "server" { driver = "docker" } } }`
	_, _, err := c.Jobs().RegisterOpts(testAPIJob("web"), &api.RegisterOptions{
		Submission: &api.JobSubmission{Source: src, Format: "hcl2", VariableFlags: map[string]string{"x": "1"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := c.Jobs().Submission("web", 0, nil)
	if err != nil || sub.Source != src || sub.Format != "hcl2" || sub.VariableFlags["x"] != "1" {
		t.Fatalf("submission: %+v %v", sub, err)
	}
	if _, _, err := c.Jobs().Submission("web", 1, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing version: %v", err)
	}
	_, _, err = c.Jobs().RegisterOpts(testAPIJob("bad"), &api.RegisterOptions{
		Submission: &api.JobSubmission{Source: src, Format: "yaml"},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "Submission.Format") {
		t.Fatalf("bad format: %v", err)
	}
}

func TestJobStableAndVersionTags(t *testing.T) {
	_, c := testAgent(t, nil)
	job := testAPIJob("web")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	job.TaskGroups[0].Count = pointer(5)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().Stable("web", 0, true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Jobs().TagVersion("web", 0, "golden", "known good", nil); err != nil {
		t.Fatal(err)
	}
	v0, _, err := c.Jobs().VersionByTag("web", "golden", nil)
	if err != nil || *v0.Version != 0 || !*v0.Stable || v0.VersionTag.Description != "known good" {
		t.Fatalf("tagged version: %+v %v", v0, err)
	}
	if _, err := c.Jobs().UntagVersion("web", "golden", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().VersionByTag("web", "golden", nil); err == nil {
		t.Fatal("untagged version still found by tag")
	}
	if _, err := c.Jobs().UntagVersion("web", "golden", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("untag of a missing tag: %v", err)
	}
	if _, _, err := c.Jobs().Stable("web", 42, true, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("stable of a missing version: %v", err)
	}
}
