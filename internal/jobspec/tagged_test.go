package jobspec

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestTaggedSchemasAcceptNomadAttributes pins the attributes the tag-driven
// blocks accept, so an API upgrade that adds or renames one is noticed.
func TestTaggedSchemasAcceptNomadAttributes(t *testing.T) {
	attrNames := func(names []taggedField) []string {
		var out []string
		for _, f := range names {
			out = append(out, f.name)
		}
		return out
	}
	eq(t, "template", attrNames(taggedFields[api.Template]()), []string{"source", "destination", "data",
		"change_mode", "change_signal", "once", "splay", "perms", "uid", "gid", "left_delimiter",
		"right_delimiter", "env", "vault_grace", "error_on_missing_key"})
	eq(t, "check", attrNames(taggedFields[api.ServiceCheck]()), []string{"name", "type", "command", "args",
		"path", "protocol", "port", "expose", "address_mode", "advertise", "interval", "timeout",
		"initial_status", "notes", "tls_server_name", "tls_skip_verify", "method", "grpc_service",
		"grpc_use_tls", "task", "success_before_passing", "failures_before_critical",
		"failures_before_warning", "body", "on_update"})
}

const taggedJob = `job "j" {
  group "g" {
    task "t" {
      driver = "exec"
      template {
        destination = "local/a"
        once = true
        uid = 7
        vault_grace = "3s"
      }
      service {
        name = "web"
        check {
          type = "http"
          args = ["-v"]
          expose = true
          interval = "10s"
          failures_before_critical = 2
        }
      }
    }
  }
}`

// TestTaggedBlocksDecodeEveryReaderKind covers each field type readInto
// handles: plain and pointer strings, bools, ints and durations, and lists.
func TestTaggedBlocksDecodeEveryReaderKind(t *testing.T) {
	j, _, err := parseSrc(taggedJob, ParseOptions{AllowUnsupported: true})
	if err != nil {
		t.Fatal(err)
	}
	task := j.TaskGroups[0].Tasks[0]
	tp := task.Templates[0]
	eq(t, "destination", deref(t, "destination", tp.DestPath), "local/a")
	eq(t, "once", deref(t, "once", tp.Once), true)
	eq(t, "uid", deref(t, "uid", tp.Uid), 7)
	eq(t, "vault_grace", deref(t, "vault_grace", tp.VaultGrace), dur("3s"))
	if tp.SourcePath != nil || tp.Gid != nil {
		t.Errorf("unset template attributes were filled: source=%v gid=%v", tp.SourcePath, tp.Gid)
	}
	c := task.Services[0].Checks[0]
	eq(t, "check", c, api.ServiceCheck{Type: "http", Args: []string{"-v"}, Expose: true,
		Interval: dur("10s"), FailuresBeforeCritical: 2})
}

// TestTaggedBlockRejectsUnknownAttribute: the schema built from the tags
// is as strict as a hand-written one.
func TestTaggedBlockRejectsUnknownAttribute(t *testing.T) {
	src := strings.Replace(taggedJob, "once = true", "onse = true", 1)
	_, _, err := parseSrc(src, ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), `"onse"`) {
		t.Fatalf("err = %v, want an unsupported-argument error naming onse", err)
	}
}
