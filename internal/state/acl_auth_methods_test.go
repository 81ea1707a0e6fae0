package state

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// At most one auth method is the default: writing a new default takes
// the mark from the old one. Deleting a method deletes its binding rules
// and nothing else; a rule of a missing method is refused.
func TestACLAuthMethods_DefaultAndCascade(t *testing.T) {
	s := newStore(t)
	method := func(name string, def bool) *structs.ACLAuthMethod {
		return &structs.ACLAuthMethod{Name: name, Type: "JWT", TokenLocality: "local", MaxTokenTTL: time.Hour, Default: def,
			Config: &structs.ACLAuthMethodConfig{JWKSURL: "https://idp/jwks"}}
	}
	must(t, s.UpsertACLAuthMethods(5, []*structs.ACLAuthMethod{method("a", true), method("b", false)}))
	must(t, s.UpsertACLAuthMethods(6, []*structs.ACLAuthMethod{method("b", true)}))
	a, _ := s.ACLAuthMethodByName(nil, "a")
	b, _ := s.ACLAuthMethodByName(nil, "b")
	if a.Default || !b.Default || a.ModifyIndex != 6 || b.CreateIndex != 5 || b.ModifyIndex != 6 {
		t.Fatalf("a %+v b %+v", a, b)
	}
	rule := func(id, m string) *structs.ACLBindingRule {
		return &structs.ACLBindingRule{ID: id, AuthMethod: m, BindType: "management"}
	}
	must(t, s.UpsertACLBindingRules(7, []*structs.ACLBindingRule{rule(roleA, "a"), rule(roleB, "b")}))
	if err := s.UpsertACLBindingRules(8, []*structs.ACLBindingRule{rule("00000000-0000-0000-0000-0000000000a3", "nope")}); err == nil {
		t.Fatal("a rule of a missing method was written")
	}
	must(t, s.DeleteACLAuthMethods(9, []string{"a"}))
	if r, _ := s.ACLBindingRuleByID(nil, roleA); r != nil {
		t.Fatal("the deleted method's rule is left")
	}
	if r, _ := s.ACLBindingRuleByID(nil, roleB); r == nil {
		t.Fatal("another method's rule was deleted")
	}
	if err := s.DeleteACLAuthMethods(10, []string{"b", "nope"}); err == nil {
		t.Fatal("deleting an unknown method succeeded")
	}
	if b, _ := s.ACLAuthMethodByName(nil, "b"); b == nil {
		t.Fatal("a failed delete deleted something")
	}
}

// A pending OIDC login is consumed once: a second delete of its state is
// ErrNotFound and deletes nothing else. Storing one drops every one
// expired at the entry's Now.
func TestOIDCAuthRequests_ConsumeOnceAndExpire(t *testing.T) {
	s := newStore(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	req := func(state string, exp time.Time) *structs.OIDCAuthRequest {
		return &structs.OIDCAuthRequest{State: state, AuthMethodName: "corp", ClientNonce: "n", ExpiresAt: exp}
	}
	must(t, s.UpsertOIDCAuthRequest(5, req("a", t0.Add(time.Minute)), t0))
	must(t, s.UpsertOIDCAuthRequest(6, req("b", t0.Add(time.Hour)), t0))
	must(t, s.DeleteOIDCAuthRequests(7, []string{"a"}))
	if err := s.DeleteOIDCAuthRequests(8, []string{"a"}); err == nil {
		t.Fatal("a consumed state was consumed again")
	}
	must(t, s.UpsertOIDCAuthRequest(9, req("c", t0.Add(2*time.Hour)), t0.Add(90*time.Minute)))
	all, err := s.OIDCAuthRequests(nil)
	must(t, err)
	if len(all) != 1 || all[0].State != "c" || all[0].CreateIndex != 9 {
		t.Fatalf("pending after expiry: %+v", all)
	}
}
