package jobspec

import (
	"strings"
	"testing"
	"time"
)

// Identity blocks: the unnamed (or "default") one is Task.Identity, named
// ones are Task.Identities with every attribute Nomad has; service_name
// and extra_claims stay refused at their attribute.
func TestParse_NamedIdentities(t *testing.T) {
	src := `job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      identity {
        env      = true
        file     = true
        filepath = "local/t.jwt"
        ttl      = "2h"
        change_mode = "restart"
      }
      identity {
        name          = "vault_default"
        aud           = ["vault.io", "b"]
        file          = true
        env           = true
        ttl           = "1h"
        change_mode   = "signal"
        change_signal = "SIGHUP"
      }
    }
  }
}`
	j, _, err := parseSrc(src, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	task := j.TaskGroups[0].Tasks[0]
	if d := task.Identity; d == nil || !d.Env || !d.File || d.Filepath != "local/t.jwt" || d.TTL != 2*time.Hour || d.ChangeMode != "restart" {
		t.Fatalf("default identity: %+v", d)
	}
	if len(task.Identities) != 1 {
		t.Fatalf("named identities: %+v", task.Identities)
	}
	v := task.Identities[0]
	if v.Name != "vault_default" || strings.Join(v.Audience, ",") != "vault.io,b" || !v.File || !v.Env ||
		v.TTL != time.Hour || v.ChangeMode != "signal" || v.ChangeSignal != "SIGHUP" {
		t.Fatalf("vault_default: %+v", v)
	}

	refused := strings.Replace(src, `name          = "vault_default"`, `name = "vault_default"
        service_name = "x"`, 1)
	if _, _, err := parseSrc(refused, ParseOptions{}); err == nil || !strings.Contains(err.Error(), "ServiceName") {
		t.Fatalf("service_name: %v, want a refusal naming it", err)
	}
}
