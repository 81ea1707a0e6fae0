package structs

import "slices"

// ACLRole groups policies under a name; a token linked to a role holds
// the role's policies as well as its own, and follows the role's changes.
type ACLRole struct {
	// ID is a UUID chosen by the server; links from tokens name it.
	ID string
	// Name is unique; it can change, the ID cannot.
	Name        string
	Description string
	Policies    []*ACLRolePolicyLink

	CreateIndex uint64
	ModifyIndex uint64
}

// ACLRolePolicyLink names a policy of a role.
type ACLRolePolicyLink struct{ Name string }

// ACLTokenRoleLink is a token's link to a role. ID is the link; Name is
// filled in by the server for people reading the token.
type ACLTokenRoleLink struct {
	ID   string
	Name string
}

// Copy returns a deep copy.
func (r *ACLRole) Copy() *ACLRole {
	if r == nil {
		return nil
	}
	c := *r
	c.Policies = copyLinks(r.Policies)
	return &c
}

// PolicyNames are the names of the role's policies.
func (r *ACLRole) PolicyNames() []string {
	out := make([]string, 0, len(r.Policies))
	for _, p := range r.Policies {
		out = append(out, p.Name)
	}
	return out
}

func copyLinks[T any](in []*T) []*T {
	if in == nil {
		return nil
	}
	out := make([]*T, len(in))
	for i, l := range in {
		if l != nil {
			c := *l
			out[i] = &c
		}
	}
	return out
}

// RoleIDs are the IDs of the roles the token is linked to.
func (t *ACLToken) RoleIDs() []string {
	out := make([]string, 0, len(t.Roles))
	for _, r := range t.Roles {
		out = append(out, r.ID)
	}
	return slices.Clip(out)
}

// ACLRoleUpsertRequest is the raft payload writing roles (by ID).
type ACLRoleUpsertRequest struct{ Roles []*ACLRole }

// ACLRoleDeleteRequest is the raft payload deleting roles by ID.
type ACLRoleDeleteRequest struct{ IDs []string }
