package server

import (
	"context"
	"errors"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// UpsertRoles creates roles (no ID: the server picks one) or updates
// existing ones by ID. Management only.
func (e *ACLEndpoint) UpsertRoles(ctx context.Context, args *structs.ACLRoleUpsertArgs) (*structs.ACLRoleUpsertResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.Roles) == 0 {
		return nil, BadRequest("Roles: at least one role is required")
	}
	st := e.srv.State()
	roles := make([]*structs.ACLRole, 0, len(args.Roles))
	for i, in := range args.Roles {
		r, err := prepareRole(st, in)
		if err != nil {
			return nil, BadRequest("Roles[%d].%v", i, err)
		}
		roles = append(roles, r)
	}
	index, err := e.srv.raftApply(structs.ACLRoleUpsertRequestType, &structs.ACLRoleUpsertRequest{Roles: roles})
	if errors.Is(err, state.ErrACLRoleInvalid) {
		return nil, BadRequest("Roles: %v", err)
	}
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLRoleUpsertResponse{WriteMeta: structs.WriteMeta{Index: index}}
	for _, r := range roles {
		stored, err := e.srv.State().ACLRoleByID(nil, r.ID)
		if err != nil {
			return nil, err
		}
		reply.Roles = append(reply.Roles, stored)
	}
	return reply, nil
}

// prepareRole validates one role and builds what raft will store.
func prepareRole(st *state.StateStore, in *structs.ACLRole) (*structs.ACLRole, error) {
	switch {
	case in == nil:
		return nil, fieldErr("Name", "missing role")
	case !validPolicyName.MatchString(in.Name):
		return nil, fieldErr("Name", "%q must be 1-128 letters, digits and dashes", in.Name)
	case len(in.Description) > maxACLDescriptionLength:
		return nil, fieldErr("Description", "longer than %d characters", maxACLDescriptionLength)
	case len(in.Policies) == 0:
		return nil, fieldErr("Policies", "a role needs at least one policy")
	}
	out := &structs.ACLRole{ID: in.ID, Name: in.Name, Description: in.Description}
	for _, link := range in.Policies {
		if link == nil || link.Name == "" {
			return nil, fieldErr("Policies", "a policy link needs a name")
		}
		if p, _ := st.ACLPolicyByName(nil, link.Name); p == nil {
			return nil, fieldErr("Policies", "policy %q does not exist", link.Name)
		}
		if !slices.ContainsFunc(out.Policies, func(l *structs.ACLRolePolicyLink) bool { return l.Name == link.Name }) {
			out.Policies = append(out.Policies, &structs.ACLRolePolicyLink{Name: link.Name})
		}
	}
	if out.ID == "" {
		out.ID = NewUUID()
	} else if existing, _ := st.ACLRoleByID(nil, out.ID); existing == nil {
		return nil, fieldErr("ID", "role %q does not exist (leave ID empty to create a role)", out.ID)
	}
	if named, _ := st.ACLRoleByName(nil, out.Name); named != nil && named.ID != out.ID {
		return nil, fieldErr("Name", "%q is the name of role %s", out.Name, named.ID)
	}
	return out, nil
}

// DeleteRoles deletes roles by ID (management only). Tokens linked to a
// deleted role keep the link, which grants nothing.
func (e *ACLEndpoint) DeleteRoles(ctx context.Context, args *structs.ACLRoleDeleteArgs) (*structs.ACLWriteResponse, error) {
	exists := func(id string) bool { r, _ := e.srv.State().ACLRoleByID(nil, id); return r != nil }
	return e.deleteACLObjects(args, aclDeletion{field: "IDs", noun: "role", key: "ID", keys: args.IDs, exists: exists},
		structs.ACLRoleDeleteRequestType, &structs.ACLRoleDeleteRequest{IDs: args.IDs})
}

// ListRoles lists every role to a management token, and to others only
// the roles their token is linked to.
func (e *ACLEndpoint) ListRoles(ctx context.Context, args *structs.ACLRoleListRequest) (*structs.ACLRoleListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLRoleListResponse{}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		all, err := st.ACLRoles(ws, args.Prefix)
		reply.Roles = slices.DeleteFunc(all, func(r *structs.ACLRole) bool { return !caller.MayReadRole(r.ID) })
		return st.Index(state.TableACLRoles), err
	})
	return reply, err
}

// GetRole answers one role, by ID or else by name (nil when absent), to
// a caller allowed to read it.
func (e *ACLEndpoint) GetRole(ctx context.Context, args *structs.ACLRoleSpecificRequest) (*structs.SingleACLRoleResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	reply := &structs.SingleACLRoleResponse{}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var r *structs.ACLRole
		var err error
		if args.ID != "" {
			r, err = st.ACLRoleByID(ws, args.ID)
		} else {
			r, err = st.ACLRoleByName(ws, args.Name)
		}
		reply.Role = r
		if r != nil {
			return r.ModifyIndex, err
		}
		return st.Index(state.TableACLRoles), err
	})
	// Whether a role the caller does not hold exists is not its business.
	if err == nil && !caller.ACL.IsManagement() && (reply.Role == nil || !caller.MayReadRole(reply.Role.ID)) {
		return nil, ErrPermissionDenied
	}
	return reply, err
}
