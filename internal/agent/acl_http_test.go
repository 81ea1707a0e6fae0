package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// aclAgent starts an agent with ACLs on, bootstraps it and returns a
// client holding the management token.
func aclAgent(t *testing.T) (*Agent, *api.Client, *api.ACLToken) {
	t.Helper()
	a, c := testAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	c.SetSecretID(root.SecretID)
	return a, c, root
}

// withToken is a client of the same agent presenting secret.
func withToken(t *testing.T, a *Agent, secret string) *api.Client {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), SecretID: secret})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantHTTPError(t *testing.T, err error, code string, contains string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), code) || !strings.Contains(err.Error(), contains) {
		t.Fatalf("err = %v, want %s containing %q", err, code, contains)
	}
}

func TestACLHTTP_BootstrapPoliciesTokens(t *testing.T) {
	a, c, root := aclAgent(t)
	if root.Type != "management" || root.AccessorID == "" || root.SecretID == "" {
		t.Fatalf("bootstrap token %+v", root)
	}
	_, _, err := withToken(t, a, "").ACLTokens().Bootstrap(nil)
	wantHTTPError(t, err, "400", "ACL bootstrap already done (reset index: ")

	// Policies.
	wantHTTPError(t, func() error {
		_, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "bad", Rules: "namespace \"default\" {\n  policy = \"admin\"\n}"}, nil)
		return err
	}(), "400", `Rules: 2:12: namespace "default": policy "admin"`)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "readonly", Description: "read default", Rules: `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "nodes", Rules: `node { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	p, _, err := c.ACLPolicies().Info("readonly", nil)
	if err != nil || p.Description != "read default" || p.CreateIndex == 0 {
		t.Fatalf("policy info = %+v, %v", p, err)
	}
	list, _, err := c.ACLPolicies().List(nil)
	if err != nil || len(list) != 2 {
		t.Fatalf("policy list = %+v, %v", list, err)
	}
	_, _, err = c.ACLPolicies().Info("nope", nil)
	wantHTTPError(t, err, "404", "not found")

	// Tokens.
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "reader", Type: "client", Policies: []string{"readonly"}, ExpirationTTL: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok.SecretID == "" || tok.ExpirationTime == nil || tok.ExpirationTTL != time.Hour {
		t.Fatalf("created token %+v", tok)
	}
	reader := withToken(t, a, tok.SecretID)
	self, _, err := reader.ACLTokens().Self(nil)
	if err != nil || self.AccessorID != tok.AccessorID {
		t.Fatalf("self = %+v, %v", self, err)
	}
	// A client token sees its own policies only, and no token list.
	mine, _, err := reader.ACLPolicies().List(nil)
	if err != nil || len(mine) != 1 || mine[0].Name != "readonly" {
		t.Fatalf("reader's policies = %+v, %v", mine, err)
	}
	_, _, err = reader.ACLPolicies().Info("nodes", nil)
	wantHTTPError(t, err, "403", "Permission denied")
	_, _, err = reader.ACLTokens().List(nil)
	wantHTTPError(t, err, "403", "Permission denied")
	_, _, err = reader.ACLTokens().Create(&api.ACLToken{Type: "management"}, nil)
	wantHTTPError(t, err, "403", "Permission denied")

	updated, _, err := c.ACLTokens().Update(&api.ACLToken{AccessorID: tok.AccessorID, Name: "reader2", Type: "client", Policies: []string{"readonly", "nodes"}}, nil)
	if err != nil || updated.Name != "reader2" || len(updated.Policies) != 2 || updated.SecretID != tok.SecretID {
		t.Fatalf("update = %+v, %v", updated, err)
	}
	tokens, _, err := c.ACLTokens().List(nil)
	if err != nil || len(tokens) != 2 {
		t.Fatalf("token list = %+v, %v", tokens, err)
	}
	info, _, err := c.ACLTokens().Info(tok.AccessorID, nil)
	if err != nil || info.Name != "reader2" {
		t.Fatalf("token info = %+v, %v", info, err)
	}
	if _, err := c.ACLTokens().Delete(tok.AccessorID, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = reader.ACLTokens().Self(nil)
	wantHTTPError(t, err, "403", "Permission denied")

	if _, err := c.ACLPolicies().Delete("nodes", nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.ACLPolicies().Delete("nodes", nil)
	wantHTTPError(t, err, "404", "not found")

	// Authorization: Bearer works like X-Nomad-Token.
	bearer, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), Headers: map[string][]string{"Authorization": {"Bearer " + root.SecretID}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bearer.ACLTokens().List(nil); err != nil {
		t.Fatalf("bearer token: %v", err)
	}
}

func TestACLHTTP_DisabledIs400(t *testing.T) {
	_, c := testAgent(t, nil)
	_, _, err := c.ACLTokens().Bootstrap(nil)
	wantHTTPError(t, err, "400", "ACL support disabled")
	_, _, err = c.ACLPolicies().List(nil)
	wantHTTPError(t, err, "400", "ACL support disabled")
}
