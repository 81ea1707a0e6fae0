package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The ACL topics (Nomad's ACLToken, ACLPolicy, ACLRole, ACLAuthMethod,
// ACLBindingRule) through the official client: writes and deletes are
// events of their topic, keyed by accessor ID, name or ID; a token's
// SecretID and an auth method's client secret never appear; a token that
// is not management may not subscribe to them (403, Nomad's rule).
func TestEventStream_ACLTopics(t *testing.T) {
	a, c, root := aclAgent(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "nodes", Rules: `node { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	role, _, err := c.ACLRoles().Create(&api.ACLRole{Name: "ops", Policies: []*api.ACLRolePolicyLink{{Name: "nodes"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "bob", Type: "client", Policies: []string{"nodes"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ACLTokens().Delete(tok.AccessorID, nil); err != nil {
		t.Fatal(err)
	}
	m, _, err := c.ACLAuthMethods().Create(&api.ACLAuthMethod{Name: "sso", Type: "OIDC", TokenLocality: "local", MaxTokenTTL: time.Hour,
		Config: &api.ACLAuthMethodConfig{OIDCDiscoveryURL: "https://idp.test", OIDCClientID: "cid", OIDCClientSecret: "very-secret",
			AllowedRedirectURIs: []string{"http://localhost:4649/oidc/callback"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rule, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: m.Name, BindType: "role", BindName: "ops"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ACLAuthMethods().Delete("sso", nil); err != nil { // deletes the rule too
		t.Fatal(err)
	}

	for _, topic := range []api.Topic{"ACLToken", "ACLPolicy", "ACLRole", "ACLAuthMethod", "ACLBindingRule"} {
		_, err := withToken(t, a, tok.SecretID).EventStream().Stream(ctx, map[api.Topic][]string{topic: {"*"}}, 0, nil)
		wantHTTPError(t, err, "403", "")
	}
	all := map[api.Topic][]string{"ACLToken": {"*"}, "ACLPolicy": {"*"}, "ACLRole": {"*"}, "ACLAuthMethod": {"*"}, "ACLBindingRule": {"*"}}
	ch, err := withToken(t, a, root.SecretID).EventStream().Stream(ctx, all, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := streamUntil(t, ch, func(e api.Event) bool { return e.Type == "ACLBindingRuleDeleted" })
	got := map[string]api.Event{}
	for _, e := range seen {
		got[e.Type+" "+e.Key] = e
		if strings.Contains(eventJSON(t, e), tok.SecretID) || strings.Contains(eventJSON(t, e), root.SecretID) ||
			strings.Contains(eventJSON(t, e), "very-secret") {
			t.Fatalf("event %s %s carries a secret: %s", e.Type, e.Key, eventJSON(t, e))
		}
	}
	for _, want := range []string{
		"ACLTokenUpserted " + root.AccessorID, "ACLPolicyUpserted nodes", "ACLRoleUpserted " + role.ID,
		"ACLTokenUpserted " + tok.AccessorID, "ACLTokenDeleted " + tok.AccessorID, "ACLAuthMethodUpserted sso",
		"ACLBindingRuleUpserted " + rule.ID, "ACLBindingRuleDeleted " + rule.ID, "ACLAuthMethodDeleted sso",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s event; saw %s", want, eventNames(seen))
		}
	}
	bob := got["ACLTokenUpserted "+tok.AccessorID]
	if payload, _ := bob.Payload["ACLToken"].(map[string]any); payload["Name"] != "bob" || payload["SecretID"] != "" || bob.Topic != "ACLToken" {
		t.Fatalf("token event %+v", bob)
	}
	if policy, _ := got["ACLPolicyUpserted nodes"].Payload["ACLPolicy"].(map[string]any); policy["Rules"] != `node { policy = "read" }` {
		t.Fatalf("policy event %+v", got["ACLPolicyUpserted nodes"])
	}
}

func eventJSON(t *testing.T, e api.Event) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
