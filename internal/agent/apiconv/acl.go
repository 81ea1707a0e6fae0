package apiconv

import (
	"slices"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// ACLPolicyToStructs converts a policy from the API.
func ACLPolicyToStructs(p *api.ACLPolicy) *structs.ACLPolicy {
	return &structs.ACLPolicy{Name: p.Name, Description: p.Description, Rules: p.Rules}
}

// ACLPolicyFromStructs converts a stored policy to the API.
func ACLPolicyFromStructs(p *structs.ACLPolicy) *api.ACLPolicy {
	return &api.ACLPolicy{Name: p.Name, Description: p.Description, Rules: p.Rules, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex}
}

// ACLPolicyStub is a policy as listed.
func ACLPolicyStub(p *structs.ACLPolicy) *api.ACLPolicyListStub {
	return &api.ACLPolicyListStub{Name: p.Name, Description: p.Description, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex}
}

// ACLTokenToStructs converts a token from the API.
func ACLTokenToStructs(t *api.ACLToken) *structs.ACLToken {
	return &structs.ACLToken{
		AccessorID: t.AccessorID, SecretID: t.SecretID, Name: t.Name, Type: t.Type,
		Policies: slices.Clone(t.Policies), Global: t.Global, ExpirationTime: copyTime(t.ExpirationTime),
		ExpirationTTL: t.ExpirationTTL, Roles: tokenRoleLinksToStructs(t.Roles),
	}
}

// ACLTokenFromStructs converts a stored token to the API.
func ACLTokenFromStructs(t *structs.ACLToken) *api.ACLToken {
	return &api.ACLToken{
		AccessorID: t.AccessorID, SecretID: t.SecretID, Name: t.Name, Type: t.Type,
		Policies: nonNil(t.Policies), Roles: tokenRoleLinksFromStructs(t.Roles), Global: t.Global, CreateTime: t.CreateTime,
		ExpirationTime: copyTime(t.ExpirationTime), ExpirationTTL: t.ExpirationTTL,
		CreateIndex: t.CreateIndex, ModifyIndex: t.ModifyIndex,
	}
}

// ACLTokenStub is a token as listed (no secret).
func ACLTokenStub(t *structs.ACLToken) *api.ACLTokenListStub {
	return &api.ACLTokenListStub{
		AccessorID: t.AccessorID, Name: t.Name, Type: t.Type, Policies: nonNil(t.Policies),
		Roles: tokenRoleLinksFromStructs(t.Roles), Global: t.Global, CreateTime: t.CreateTime, ExpirationTime: copyTime(t.ExpirationTime),
		CreateIndex: t.CreateIndex, ModifyIndex: t.ModifyIndex,
	}
}

func copyTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
