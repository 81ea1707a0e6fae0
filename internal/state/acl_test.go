package state

import (
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestACLTokens_LookupAndDelete(t *testing.T) {
	s := newStore(t)
	tok := &structs.ACLToken{AccessorID: "00000000-0000-0000-0000-0000000000a1", SecretID: "00000000-0000-0000-0000-0000000000b1", Type: structs.ACLClientToken}
	must(t, s.UpsertACLTokens(5, []*structs.ACLToken{tok}))
	got, err := s.ACLTokenBySecretID(nil, tok.SecretID)
	if err != nil || got == nil || got.AccessorID != tok.AccessorID || got.CreateIndex != 5 {
		t.Fatalf("by secret = %+v, %v", got, err)
	}
	if got, err := s.ACLTokenBySecretID(nil, "not-a-uuid"); got != nil || err != nil {
		t.Fatalf("malformed secret = %+v, %v", got, err)
	}
	must(t, s.UpsertACLTokens(6, []*structs.ACLToken{{AccessorID: tok.AccessorID, SecretID: tok.SecretID, Name: "renamed"}}))
	got, _ = s.ACLTokenByAccessorID(nil, tok.AccessorID)
	if got.CreateIndex != 5 || got.ModifyIndex != 6 || got.Name != "renamed" {
		t.Fatalf("update = %+v", got)
	}
	if err := s.DeleteACLTokens(7, []string{tok.AccessorID, "00000000-0000-0000-0000-000000000000"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete with an unknown accessor = %v", err)
	}
	if got, _ := s.ACLTokenByAccessorID(nil, tok.AccessorID); got == nil {
		t.Fatal("a failed delete removed a token")
	}
	must(t, s.DeleteACLTokens(8, []string{tok.AccessorID}))
	if got, _ := s.ACLTokenByAccessorID(nil, tok.AccessorID); got != nil {
		t.Fatal("token survived delete")
	}
}

func TestBootstrapACLToken_OnceUnlessReset(t *testing.T) {
	s := newStore(t)
	mk := func(n string) *structs.ACLToken {
		return &structs.ACLToken{AccessorID: "00000000-0000-0000-0000-0000000000" + n, SecretID: "10000000-0000-0000-0000-0000000000" + n, Type: structs.ACLManagementToken}
	}
	must(t, s.BootstrapACLToken(10, 0, mk("01")))
	if s.ACLBootstrapIndex() != 10 {
		t.Fatalf("bootstrap index %d", s.ACLBootstrapIndex())
	}
	if err := s.BootstrapACLToken(11, 0, mk("02")); !errors.Is(err, ErrACLAlreadyBootstrapped) {
		t.Fatalf("second bootstrap = %v", err)
	}
	if err := s.BootstrapACLToken(12, 9, mk("03")); !errors.Is(err, ErrACLAlreadyBootstrapped) {
		t.Fatalf("bootstrap with a stale reset index = %v", err)
	}
	must(t, s.BootstrapACLToken(13, 10, mk("04")))
	if s.ACLBootstrapIndex() != 13 {
		t.Fatalf("bootstrap index after reset %d", s.ACLBootstrapIndex())
	}
	if tok, _ := s.ACLTokenByAccessorID(nil, mk("02").AccessorID); tok != nil {
		t.Fatal("refused bootstrap wrote its token")
	}
}

func TestACLPolicies_UpsertListDelete(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertACLPolicies(3, []*structs.ACLPolicy{{Name: "a"}, {Name: "ab"}, {Name: "b"}}))
	ps, _ := s.ACLPolicies(nil, "a")
	if len(ps) != 2 {
		t.Fatalf("prefix a = %d policies", len(ps))
	}
	if err := s.DeleteACLPolicies(4, []string{"zz"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete unknown = %v", err)
	}
	must(t, s.DeleteACLPolicies(5, []string{"a"}))
	if p, _ := s.ACLPolicyByName(nil, "a"); p != nil {
		t.Fatal("policy survived delete")
	}
	if s.Index(TableACLPolicies) != 5 {
		t.Fatalf("index %d", s.Index(TableACLPolicies))
	}
}
