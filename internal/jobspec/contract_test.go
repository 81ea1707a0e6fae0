package jobspec

import (
	"errors"
	"strings"
	"testing"
)

const refusedJob = `job "web" {
  group "g" {
    network {
      port "http" { to = 8080 }
    }
    service {
      name = "web"
      port = "http"
    }
    task "t" {
      driver = "docker"
      config { image = "nginx" }
      vault { role = "web" }
      artifact {
        source = "https://example.com/x.tgz"
        headers { X = "y" }
      }
      resources {
        numa { affinity = "require" }
      }
    }
  }
}
`

// TestParse_RefusesUnsupportedFieldsAtTheirPosition: the parser applies
// the field contract (internal/jobspec/fields), one error per refused
// field at the attribute or block that set it, so drover job run/plan/
// validate and POST /v1/jobs/parse point at the line to change.
func TestParse_RefusesUnsupportedFieldsAtTheirPosition(t *testing.T) {
	_, _, err := Parse("web.nomad.hcl", []byte(refusedJob), ParseOptions{Env: []string{}})
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("parse = %v, want an *Error", err)
	}
	want := map[string]string{ // position -> what it names
		"web.nomad.hcl:6:5":  "Services[0].Provider", // unset: the service block
		"web.nomad.hcl:13:7": "vault block",
		"web.nomad.hcl:14:7": "GetterHeaders",  // headers is a block: the artifact's position
		"web.nomad.hcl:19:9": "Resources.NUMA", // the numa block
	}
	got := map[string]string{}
	for _, d := range perr.Diagnostics() {
		got[d.Pos] += d.Summary + ": " + d.Detail + "\n"
	}
	for pos, what := range want {
		if !strings.Contains(got[pos], what) {
			t.Errorf("%s: want an error naming %s; errors:\n%v", pos, what, err)
		}
	}
	if len(perr.Diagnostics()) != len(want) {
		t.Errorf("%d errors, want %d:\n%v", len(perr.Diagnostics()), len(want), err)
	}
}

// TestParse_WarnsForWarnedFields: the ui block is accepted with a warning.
func TestParse_WarnsForWarnedFields(t *testing.T) {
	src := `job "web" {
  ui { description = "the web tier" }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`
	job, warns, err := Parse("ui.nomad.hcl", []byte(src), ParseOptions{Env: []string{}})
	if err != nil || job == nil {
		t.Fatalf("parse: %v", err)
	}
	if len(warns) != 1 || warns[0].Pos != "ui.nomad.hcl:2:3" || !strings.Contains(warns[0].Message, "the ui block") || job.UI == nil || job.UI.Description != "the web tier" {
		t.Fatalf("warnings = %v, want one for the ui block at 2:3", warns)
	}
}
