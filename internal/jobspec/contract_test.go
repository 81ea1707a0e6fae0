package jobspec

import (
	"errors"
	"strings"
	"testing"
)

const refusedJob = `job "web" {
  group "g" {
    network {
      mode = "bridge"
      port "http" { to = 8080 }
    }
    ephemeral_disk {
      sticky = true
    }
    service {
      name = "web"
      port = "http"
      canary_tags = ["canary"]
      check {
        type = "http"
        path = "/"
        interval = "10s"
        timeout = "2s"
        header { Host = ["example.com"] }
      }
    }
    task "t" {
      driver = "docker"
      config { image = "nginx" }
      vault { role = "web" }
      template {
        data = "[[ env \"X\" ]]"
        destination = "local/x"
        left_delimiter = "[["
        right_delimiter = "]]"
      }
      resources {
        device "nvidia/gpu" { count = 1 }
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
		"web.nomad.hcl:4:7":  "Networks[0].Mode",
		"web.nomad.hcl:8:7":  "EphemeralDisk.Sticky",
		"web.nomad.hcl:10:5": "Services[0].Provider", // unset: the service block
		"web.nomad.hcl:13:7": "CanaryTags",
		"web.nomad.hcl:14:7": "Checks[0].Header", // header is a block: the check's position
		"web.nomad.hcl:25:7": "vault block",
		"web.nomad.hcl:29:9": "LeftDelim",
		"web.nomad.hcl:30:9": "RightDelim",
		"web.nomad.hcl:33:9": "Resources.Devices", // the device block
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
