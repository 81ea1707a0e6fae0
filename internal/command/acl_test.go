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

// TestACLRoleCommands drives acl role create/list/info/update/delete and
// a token linked to a role by name.
func TestACLRoleCommands(t *testing.T) {
	addr, _ := testAgent(t, func(c *config.Config) { c.ACL.Enabled = true })
	var root api.ACLToken
	if r := run(t, "acl", "bootstrap", "-address", addr, "-json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &root) != nil {
		t.Fatalf("bootstrap: %+v", r)
	}
	rules := filepath.Join(t.TempDir(), "readonly.hcl")
	if err := os.WriteFile(rules, []byte(`namespace "default" { policy = "read" }`), 0o600); err != nil {
		t.Fatal(err)
	}
	mgmt := []string{"-address", addr, "-token", root.SecretID}
	as := func(args ...string) []string { return append(args[:len(args):len(args)], mgmt...) }
	for _, name := range []string{"readonly", "other"} {
		if r := run(t, append(as("acl", "policy", "apply"), name, rules)...); r.code != 0 {
			t.Fatalf("policy apply: %+v", r)
		}
	}
	golden(t, "acl_role_create_missing_policy", run(t, as("acl", "role", "create", "-name", "readers")...))
	r := run(t, as("acl", "role", "create", "-name", "readers", "-description", "read default", "-policy", "readonly", "-json")...)
	var role api.ACLRole
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &role) != nil || role.ID == "" {
		t.Fatalf("role create: %+v", r)
	}
	golden(t, "acl_role_list", run(t, as("acl", "role", "list")...))
	golden(t, "acl_role_info_by_name", stableIndexes(run(t, append(as("acl", "role", "info", "-by-name"), "readers")...)))
	golden(t, "acl_role_update", stableIndexes(run(t, append(as("acl", "role", "update", "-policy", "readonly", "-policy", "other"), role.ID)...)))

	r = run(t, as("acl", "token", "create", "-name", "via-role", "-role-name", "readers", "-json")...)
	var tok api.ACLToken
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &tok) != nil {
		t.Fatalf("token create: %+v", r)
	}
	golden(t, "acl_token_self_roles", stableIndexes(run(t, "acl", "token", "self", "-address", addr, "-token", tok.SecretID)))
	golden(t, "acl_role_list_as_holder", run(t, "acl", "role", "list", "-address", addr, "-token", tok.SecretID))
	golden(t, "acl_role_delete", run(t, append(as("acl", "role", "delete"), role.ID)...))
}
