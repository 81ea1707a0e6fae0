package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

const parseJobHCL = `
variable "image" {
  type    = string
  default = "nginx:1.25"
}

job "web" {
  datacenters = ["dc1"]
  group "web" {
    count = 2
    network {
      port "http" { to = 8080 }
    }
    task "server" {
      driver = "docker"
      config {
        image = var.image
        ports = ["http"]
      }
      env { NODE = "${node.unique.name}" }
      resources {
        cpu    = 200
        memory = 128
      }
    }
  }
}
`

func TestJobsParse_HCLToAPIJobWithVariables(t *testing.T) {
	a, c := testAgent(t, nil)
	job, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: parseJobHCL, Variables: `image = "nginx:1.27"`})
	if err != nil {
		t.Fatal(err)
	}
	task := job.TaskGroups[0].Tasks[0]
	if *job.ID != "web" || *job.TaskGroups[0].Count != 2 || task.Config["image"] != "nginx:1.27" || task.Env["NODE"] != "${node.unique.name}" {
		t.Fatalf("parsed job: id %v count %v config %v env %v", *job.ID, *job.TaskGroups[0].Count, task.Config, task.Env)
	}
	if job.Priority != nil {
		t.Errorf("uncanonicalized parse set Priority %d", *job.Priority)
	}
	canon, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: parseJobHCL, Canonicalize: true})
	if err != nil || canon.Priority == nil || *canon.Priority != 50 {
		t.Fatalf("canonicalized parse: %v %v", err, canon.Priority)
	}
	// What parse returns registers as is.
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register parsed job: %v", err)
	}
	before := a.Server().State().LatestIndex()
	code, msg := doRaw(t, a, "POST", "/v1/jobs/parse", `{"JobHCL": "job \"x\" {\n  bogus = 1\n}\n"}`)
	if code != 400 || !strings.Contains(msg, "job.nomad.hcl:2:3") {
		t.Fatalf("bad HCL: %d %s", code, msg)
	}
	if a.Server().State().LatestIndex() != before {
		t.Error("parse wrote to state")
	}
}

// TestJobsParse_HugeListLiteralRefusedByTheBudget sends a job file whose
// task args are a plain 200,000-element list (17 s of CPU before literals
// counted against the parse budget) and checks it is a 400 naming the
// budget.
func TestJobsParse_HugeListLiteralRefusedByTheBudget(t *testing.T) {
	_, c := testAgent(t, nil)
	hcl := "job \"big\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n      config {\n        args = [" +
		strings.Repeat(`"a",`, 200_000) + "]\n      }\n    }\n  }\n}\n"
	_, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: hcl})
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "evaluation budget") {
		t.Fatalf("parse = %v, want a 400 naming the evaluation budget", err)
	}
}
