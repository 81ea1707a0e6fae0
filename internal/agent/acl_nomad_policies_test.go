package agent

import (
	"slices"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// clientToken stores a policy and returns the secret of a client token
// holding it.
func clientToken(t *testing.T, root *api.Client, name, rules string) string {
	t.Helper()
	if _, err := root.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
		t.Fatalf("policy %s: %v", name, err)
	}
	tok, _, err := root.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{name}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok.SecretID
}

// TestACLNodePoolRules_HonouredByTheNodePoolAPI: a Nomad 1.6+ policy with
// node_pool blocks is stored, and the node pool endpoints decide by it as
// Nomad's do: the list shows the readable pools, read / write / delete
// each need their capability, a pool's nodes need node read too.
func TestACLNodePoolRules_HonouredByTheNodePoolAPI(t *testing.T) {
	a, root, _ := aclAgent(t)
	for _, name := range []string{"prod", "dev-a", "other"} {
		if _, err := root.NodePools().Register(&api.NodePool{Name: name}, nil); err != nil {
			t.Fatal(err)
		}
	}
	secret := clientToken(t, root, "pools", `
node_pool "prod" { policy = "read" }
node_pool "dev-*" { policy = "write" }
`)
	c := withToken(t, a, secret)

	pools, _, err := c.NodePools().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pools {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"dev-a", "prod"}) {
		t.Fatalf("listed pools %v, want [dev-a prod]", names)
	}
	if p, _, err := c.NodePools().Info("prod", nil); err != nil || p == nil || p.Name != "prod" {
		t.Fatalf("read prod: %+v, %v", p, err)
	}
	_, _, err = c.NodePools().Info("other", nil)
	wantHTTPError(t, err, "403", "Permission denied")
	if _, _, err := c.NodePools().ListJobs("prod", nil); err != nil {
		t.Fatalf("prod's jobs: %v", err)
	}
	_, _, err = c.NodePools().ListNodes("prod", nil)
	wantHTTPError(t, err, "403", "Permission denied") // no node read

	if _, err := c.NodePools().Register(&api.NodePool{Name: "dev-b"}, nil); err != nil {
		t.Fatalf("write dev-b: %v", err)
	}
	_, err = c.NodePools().Register(&api.NodePool{Name: "prod", Description: "changed"}, nil)
	wantHTTPError(t, err, "403", "Permission denied")
	_, err = c.NodePools().Delete("prod", nil)
	wantHTTPError(t, err, "403", "Permission denied")
	if _, err := c.NodePools().Delete("dev-b", nil); err != nil {
		t.Fatalf("delete dev-b: %v", err)
	}
	if p, _, _ := root.NodePools().Info("prod", nil); p == nil || p.Description != "" {
		t.Fatalf("prod changed: %+v", p)
	}

	// With node read as well, the pool's nodes can be listed.
	c2 := withToken(t, a, clientToken(t, root, "pool-nodes", "node_pool \"prod\" { policy = \"read\" }\nnode { policy = \"read\" }"))
	if _, _, err := c2.NodePools().ListNodes("prod", nil); err != nil {
		t.Fatalf("prod's nodes with node read: %v", err)
	}
}

// TestACLPolicy_NomadHCL1FormsAreStoredAndHonoured: a policy in a form
// Nomad's HCL1 parser accepts (two blocks on a line, an object
// assignment, an unquoted label) is stored and grants what it says.
func TestACLPolicy_NomadHCL1FormsAreStoredAndHonoured(t *testing.T) {
	a, root, _ := aclAgent(t)
	secret := clientToken(t, root, "hcl1", `namespace default { policy = "read" } node = { policy = "read" }`)
	c := withToken(t, a, secret)
	if _, _, err := c.Jobs().List(nil); err != nil {
		t.Fatalf("jobs with namespace read: %v", err)
	}
	if _, _, err := c.Nodes().List(nil); err != nil {
		t.Fatalf("nodes with node read: %v", err)
	}
	_, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	wantHTTPError(t, err, "403", "Permission denied")

	// An unknown key is still refused by name.
	_, err = root.ACLPolicies().Upsert(&api.ACLPolicy{Name: "typo", Rules: `namespace "default" { polcy = "read" }`}, nil)
	wantHTTPError(t, err, "400", `unknown key "polcy"`)
}

// TestACLPolicySelf_ClientTokenReadsItsOwnPolicies: `nomad acl policy
// self` (GET /v1/acl/policy/self) answers a client token the policies it
// holds, its roles' included, and no other.
func TestACLPolicySelf_ClientTokenReadsItsOwnPolicies(t *testing.T) {
	a, root, _ := aclAgent(t)
	for name, rules := range map[string]string{
		"own":     `namespace "default" { policy = "read" }`,
		"by-role": `node { policy = "read" }`,
		"other":   `agent { policy = "read" }`,
	} {
		if _, err := root.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
	}
	role, _, err := root.ACLRoles().Create(&api.ACLRole{Name: "nodes", Policies: []*api.ACLRolePolicyLink{{Name: "by-role"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := root.ACLTokens().Create(&api.ACLToken{Name: "dev", Type: "client", Policies: []string{"own"},
		Roles: []*api.ACLTokenRoleLink{{ID: role.ID}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	policies, _, err := withToken(t, a, tok.SecretID).ACLPolicies().Self(nil)
	if err != nil {
		t.Fatalf("policy self with a client token: %v", err)
	}
	var names []string
	for _, p := range policies {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"by-role", "own"}) {
		t.Fatalf("policy self = %v, want [by-role own]", names)
	}
	if policies, _, err := root.ACLPolicies().Self(nil); err != nil || len(policies) != 0 {
		t.Fatalf("management policy self = %v, %v; want none (it holds no policy)", policies, err)
	}
	_, _, err = withToken(t, a, "00000000-0000-0000-0000-00000000dead").ACLPolicies().Self(nil)
	wantHTTPError(t, err, "403", "Permission denied")
}
