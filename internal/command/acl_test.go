package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// TestACLCommands drives the whole ACL CLI against an agent with ACLs on:
// bootstrap, policies, tokens, and what a token without rights gets.
func TestACLCommands(t *testing.T) {
	addr, _ := testAgent(t, func(c *config.Config) { c.ACL.Enabled = true })
	r := run(t, "acl", "bootstrap", "-address", addr, "-json")
	if r.code != 0 {
		t.Fatalf("bootstrap: %+v", r)
	}
	var root api.ACLToken
	if err := json.Unmarshal([]byte(r.stdout), &root); err != nil || root.Type != "management" {
		t.Fatalf("bootstrap output %q: %v", r.stdout, err)
	}
	golden(t, "acl_bootstrap_again", stableIndexes(run(t, "acl", "bootstrap", "-address", addr)))

	rules := filepath.Join(t.TempDir(), "readonly.hcl")
	if err := os.WriteFile(rules, []byte("namespace \"default\" {\n  policy = \"read\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	as := func(args ...string) []string { return append(args, "-address", addr, "-token", root.SecretID) }
	// Flags go before positional arguments.
	golden(t, "acl_policy_apply", run(t, "acl", "policy", "apply", "-address", addr, "-token", root.SecretID, "-description", "read default", "readonly", rules))
	golden(t, "acl_policy_list", run(t, as("acl", "policy", "list")...))
	golden(t, "acl_policy_info", stableIndexes(run(t, "acl", "policy", "info", "-address", addr, "-token", root.SecretID, "readonly")))

	r = run(t, "acl", "token", "create", "-address", addr, "-token", root.SecretID, "-name", "reader", "-policy", "readonly", "-json")
	var reader api.ACLToken
	if err := json.Unmarshal([]byte(r.stdout), &reader); err != nil || r.code != 0 {
		t.Fatalf("token create %+v: %v", r, err)
	}
	golden(t, "acl_token_self", stableIndexes(run(t, "acl", "token", "self", "-address", addr, "-token", reader.SecretID)))
	golden(t, "acl_token_list_denied", run(t, "acl", "token", "list", "-address", addr, "-token", reader.SecretID))
	golden(t, "acl_token_update", stableIndexes(run(t, "acl", "token", "update", "-address", addr, "-token", root.SecretID, "-name", "reader2", reader.AccessorID)))
	golden(t, "acl_token_list", run(t, as("acl", "token", "list")...))
	golden(t, "acl_token_delete", run(t, "acl", "token", "delete", "-address", addr, "-token", root.SecretID, reader.AccessorID))
	golden(t, "acl_policy_delete", run(t, "acl", "policy", "delete", "-address", addr, "-token", root.SecretID, "readonly"))
}

// humanIndexRE matches raft indexes in human output, which vary with the
// leader's own writes.
var humanIndexRE = regexp.MustCompile(`((?:Create ?Index|Modify ?Index)\s*= |reset index: )\d+`)

func stableIndexes(r result) result {
	r.stdout = humanIndexRE.ReplaceAllString(r.stdout, "${1}N")
	r.stderr = humanIndexRE.ReplaceAllString(r.stderr, "${1}N")
	return r
}
