package agent

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// ACL roles through the official client: a token linked to a role holds
// the role's policies, follows the role's changes, and loses them when
// the role goes; a non-management token sees only its own roles.
func TestACLHTTP_Roles(t *testing.T) {
	a, c, _ := aclAgent(t)
	for _, p := range []*api.ACLPolicy{
		{Name: "readonly", Rules: `namespace "default" { policy = "read" }`},
		{Name: "nodes", Rules: `node { policy = "read" }`},
	} {
		if _, err := c.ACLPolicies().Upsert(p, nil); err != nil {
			t.Fatal(err)
		}
	}
	readers := mustCreateRole(t, c, &api.ACLRole{Name: "readers", Description: "read default",
		Policies: []*api.ACLRolePolicyLink{{Name: "readonly"}}})
	other := mustCreateRole(t, c, &api.ACLRole{Name: "other", Policies: []*api.ACLRolePolicyLink{{Name: "nodes"}}})
	checkRoleWritesRefused(t, c, readers)

	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "via-role", Type: "client",
		Roles: []*api.ACLTokenRoleLink{{Name: "readers"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok.Roles) != 1 || tok.Roles[0].ID != readers.ID || tok.Roles[0].Name != "readers" || len(tok.Policies) != 0 {
		t.Fatalf("token roles %+v policies %v", tok.Roles, tok.Policies)
	}
	_, _, err = c.ACLTokens().Create(&api.ACLToken{Type: "client", Roles: []*api.ACLTokenRoleLink{{Name: "nope"}}}, nil)
	wantHTTPError(t, err, "400", `Roles: role "nope" does not exist`)

	holder := withToken(t, a, tok.SecretID)
	if _, _, err := holder.Jobs().List(nil); err != nil {
		t.Fatalf("a role's namespace read: %v", err)
	}
	_, _, err = holder.Nodes().List(nil)
	wantHTTPError(t, err, "403", "Permission denied")

	// The token follows the role's policies.
	readers.Policies = append(readers.Policies, &api.ACLRolePolicyLink{Name: "nodes"})
	if _, _, err := c.ACLRoles().Update(readers, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := holder.Nodes().List(nil); err != nil {
		t.Fatalf("node read added to the role: %v", err)
	}

	checkRoleReads(t, c, holder, readers, other)

	if _, err := c.ACLRoles().Delete(readers.ID, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = holder.Jobs().List(nil)
	wantHTTPError(t, err, "403", "Permission denied")
	_, err = c.ACLRoles().Delete(readers.ID, nil)
	wantHTTPError(t, err, "404", "not found")
}

func mustCreateRole(t *testing.T, c *api.Client, r *api.ACLRole) *api.ACLRole {
	t.Helper()
	out, _, err := c.ACLRoles().Create(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.ID == "" || out.Name != r.Name || out.CreateIndex == 0 || len(out.Policies) != len(r.Policies) {
		t.Fatalf("created role %+v", out)
	}
	return out
}

func checkRoleWritesRefused(t *testing.T, c *api.Client, existing *api.ACLRole) {
	t.Helper()
	for _, tc := range []struct {
		role  *api.ACLRole
		field string
	}{
		{&api.ACLRole{Name: "x", Policies: []*api.ACLRolePolicyLink{{Name: "missing"}}}, `Policies: policy "missing" does not exist`},
		{&api.ACLRole{Name: "x"}, "Policies: a role needs at least one policy"},
		{&api.ACLRole{Name: "bad name!", Policies: []*api.ACLRolePolicyLink{{Name: "nodes"}}}, "Name:"},
		{&api.ACLRole{Name: existing.Name, Policies: []*api.ACLRolePolicyLink{{Name: "nodes"}}}, "Name: \"readers\" is the name of role"},
	} {
		_, _, err := c.ACLRoles().Create(tc.role, nil)
		wantHTTPError(t, err, "400", tc.field)
	}
	_, _, err := c.ACLRoles().Update(&api.ACLRole{ID: "00000000-0000-0000-0000-000000000009", Name: "x",
		Policies: []*api.ACLRolePolicyLink{{Name: "nodes"}}}, nil)
	wantHTTPError(t, err, "400", "ID: role")
	_, err = anonymousClient(t, c).ACLRoles().Delete(existing.ID, nil)
	wantHTTPError(t, err, "403", "Permission denied")
}

// checkRoleReads: management reads every role by ID and name; the holder
// reads its own role and no other, and lists only its own.
func checkRoleReads(t *testing.T, mgmt, holder *api.Client, own, other *api.ACLRole) {
	t.Helper()
	if all, _, err := mgmt.ACLRoles().List(nil); err != nil || len(all) != 2 {
		t.Fatalf("management list = %v, %v", all, err)
	}
	if r, _, err := mgmt.ACLRoles().GetByName(other.Name, nil); err != nil || r.ID != other.ID {
		t.Fatalf("by name = %+v, %v", r, err)
	}
	_, _, err := mgmt.ACLRoles().GetByName("nope", nil)
	wantHTTPError(t, err, "404", "not found")
	if r, _, err := holder.ACLRoles().Get(own.ID, nil); err != nil || r.Name != own.Name || len(r.Policies) != 2 {
		t.Fatalf("own role = %+v, %v", r, err)
	}
	_, _, err = holder.ACLRoles().Get(other.ID, nil)
	wantHTTPError(t, err, "403", "Permission denied")
	if mine, _, err := holder.ACLRoles().List(nil); err != nil || len(mine) != 1 || mine[0].ID != own.ID {
		t.Fatalf("holder list = %v, %v", mine, err)
	}
	self, _, err := holder.ACLTokens().Self(nil)
	if err != nil || len(self.Roles) != 1 || self.Roles[0].ID != own.ID {
		t.Fatalf("token self = %+v, %v", self, err)
	}
}

func anonymousClient(t *testing.T, c *api.Client) *api.Client {
	t.Helper()
	anon, err := api.NewClient(&api.Config{Address: c.Address()})
	if err != nil {
		t.Fatal(err)
	}
	return anon
}

// A body of JSON null reached api.ACLToken's UnmarshalJSON, which
// dereferences nil on it (found by FuzzDecodeBody): the handler panicked
// and the connection dropped. Now it is an empty body, refused with 400.
func TestACLHTTP_NullBodiesAre400(t *testing.T) {
	a, _, root := aclAgent(t)
	for _, path := range []string{"/v1/acl/token", "/v1/acl/role", "/v1/acl/policy/x"} {
		req, err := http.NewRequest("PUT", "http://"+a.HTTPAddr()+path, strings.NewReader(" null"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Nomad-Token", root.SecretID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s with null: %d %s", path, resp.StatusCode, body)
		}
	}
}
