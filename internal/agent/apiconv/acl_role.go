package apiconv

import (
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// ACLRoleToStructs converts a role from the API.
func ACLRoleToStructs(r *api.ACLRole) *structs.ACLRole {
	out := &structs.ACLRole{ID: r.ID, Name: r.Name, Description: r.Description}
	for _, p := range r.Policies {
		if p != nil {
			out.Policies = append(out.Policies, &structs.ACLRolePolicyLink{Name: p.Name})
		} else {
			out.Policies = append(out.Policies, nil)
		}
	}
	return out
}

// ACLRoleFromStructs converts a stored role to the API.
func ACLRoleFromStructs(r *structs.ACLRole) *api.ACLRole {
	return &api.ACLRole{ID: r.ID, Name: r.Name, Description: r.Description, Policies: rolePolicyLinks(r),
		CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex}
}

// ACLRoleStub is a role as listed.
func ACLRoleStub(r *structs.ACLRole) *api.ACLRoleListStub {
	return &api.ACLRoleListStub{ID: r.ID, Name: r.Name, Description: r.Description, Policies: rolePolicyLinks(r),
		CreateIndex: r.CreateIndex, ModifyIndex: r.ModifyIndex}
}

func rolePolicyLinks(r *structs.ACLRole) []*api.ACLRolePolicyLink {
	out := make([]*api.ACLRolePolicyLink, 0, len(r.Policies))
	for _, p := range r.Policies {
		out = append(out, &api.ACLRolePolicyLink{Name: p.Name})
	}
	return out
}

func tokenRoleLinksToStructs(in []*api.ACLTokenRoleLink) []*structs.ACLTokenRoleLink {
	var out []*structs.ACLTokenRoleLink
	for _, l := range in {
		if l != nil {
			out = append(out, &structs.ACLTokenRoleLink{ID: l.ID, Name: l.Name})
		} else {
			out = append(out, nil)
		}
	}
	return out
}

func tokenRoleLinksFromStructs(in []*structs.ACLTokenRoleLink) []*api.ACLTokenRoleLink {
	out := make([]*api.ACLTokenRoleLink, 0, len(in))
	for _, l := range in {
		out = append(out, &api.ACLTokenRoleLink{ID: l.ID, Name: l.Name})
	}
	return out
}
