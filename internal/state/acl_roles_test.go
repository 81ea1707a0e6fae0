package state

import (
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

const (
	roleA = "00000000-0000-0000-0000-0000000000a1"
	roleB = "00000000-0000-0000-0000-0000000000a2"
)

func role(id, name string, policies ...string) *structs.ACLRole {
	r := &structs.ACLRole{ID: id, Name: name}
	for _, p := range policies {
		r.Policies = append(r.Policies, &structs.ACLRolePolicyLink{Name: p})
	}
	return r
}

func TestACLRoles_UpsertLookupDelete(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertACLPolicies(4, []*structs.ACLPolicy{{Name: "read"}, {Name: "write"}}))
	must(t, s.UpsertACLRoles(5, []*structs.ACLRole{role(roleA, "readers", "read"), role(roleB, "writers", "write")}))
	must(t, s.UpsertACLRoles(6, []*structs.ACLRole{role(roleA, "renamed", "read", "write")}))
	got, err := s.ACLRoleByID(nil, roleA)
	if err != nil || got == nil || got.Name != "renamed" || got.CreateIndex != 5 || got.ModifyIndex != 6 || len(got.Policies) != 2 {
		t.Fatalf("by ID = %+v, %v", got, err)
	}
	if byName, _ := s.ACLRoleByName(nil, "renamed"); byName == nil || byName.ID != roleA {
		t.Fatalf("by new name = %+v", byName)
	}
	if old, _ := s.ACLRoleByName(nil, "readers"); old != nil {
		t.Fatal("the old name still finds the role")
	}
	if all, _ := s.ACLRoles(nil, ""); len(all) != 2 || all[0].ID != roleA {
		t.Fatalf("list = %v", all)
	}
	if some, _ := s.ACLRoles(nil, roleB); len(some) != 1 || some[0].ID != roleB {
		t.Fatalf("list by prefix = %v", some)
	}
	if err := s.DeleteACLRoles(7, []string{roleA, "not-a-uuid"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete with a bad ID = %v", err)
	}
	must(t, s.DeleteACLRoles(8, []string{roleA}))
	if got, _ := s.ACLRoleByID(nil, roleA); got != nil {
		t.Fatal("role survived delete")
	}
	if s.Index(TableACLRoles) != 8 {
		t.Fatalf("table index %d", s.Index(TableACLRoles))
	}
}

func TestACLRoles_RefusesTakenNameAndMissingPolicy(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertACLPolicies(4, []*structs.ACLPolicy{{Name: "read"}}))
	must(t, s.UpsertACLRoles(5, []*structs.ACLRole{role(roleA, "readers", "read")}))
	for name, r := range map[string]*structs.ACLRole{
		"taken name":     role(roleB, "readers", "read"),
		"missing policy": role(roleB, "other", "nope"),
		"bad ID":         role("x", "other", "read"),
	} {
		if err := s.UpsertACLRoles(6, []*structs.ACLRole{r}); !errors.Is(err, ErrACLRoleInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, _ := s.ACLRoleByID(nil, roleB); got != nil {
		t.Fatal("a refused role was written")
	}
}
