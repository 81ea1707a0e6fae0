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
