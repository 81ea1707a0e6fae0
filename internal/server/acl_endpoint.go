package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/server/authmethod"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ACLEndpoint is the ACL.* endpoint family: policies, tokens, bootstrap.
type ACLEndpoint struct{ srv *Server }

// ACLBootstrapResetFile, in the server's data dir, holds the reset index
// that allows one more bootstrap (Nomad's documented reset procedure).
const ACLBootstrapResetFile = "acl-bootstrap-reset"

// Limits of policy and token fields (Nomad's).
const (
	maxACLDescriptionLength = 256
	maxACLNameLength        = 256
	minACLTokenTTL          = time.Minute
	maxACLTokenTTL          = 24 * time.Hour * 365
)

var validPolicyName = regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`)

var errACLDisabled = BadRequest("ACL support disabled")

func (e *ACLEndpoint) enabled() error {
	if !e.srv.auth.ACLEnabled() {
		return errACLDisabled
	}
	return nil
}

// Bootstrap creates the first management token. It works once; after that
// only with the reset index written to <data_dir>/server/acl-bootstrap-reset.
func (e *ACLEndpoint) Bootstrap(ctx context.Context, args *structs.ACLBootstrapArgs) (*structs.ACLTokenUpsertResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	secret := args.BootstrapSecret
	if secret == "" {
		secret = NewUUID()
	} else if !isUUID(secret) {
		return nil, BadRequest("BootstrapSecret: must be a UUID")
	}
	var resetIndex uint64
	if current := e.srv.State().ACLBootstrapIndex(); current != 0 {
		resetIndex = e.bootstrapResetIndex()
		if resetIndex != current {
			return nil, bootstrapDone(current)
		}
	}
	token := &structs.ACLToken{
		AccessorID: NewUUID(), SecretID: secret, Name: "Bootstrap Token",
		Type: structs.ACLManagementToken, Global: true, CreateTime: e.srv.now().UTC(),
	}
	index, err := e.srv.raftApply(ctx, structs.ACLTokenBootstrapRequestType, &structs.ACLTokenBootstrapRequest{Token: token, ResetIndex: resetIndex})
	if errors.Is(err, state.ErrACLAlreadyBootstrapped) {
		return nil, bootstrapDone(e.srv.State().ACLBootstrapIndex())
	}
	if err != nil {
		return nil, err
	}
	stored, err := e.srv.State().ACLTokenByAccessorID(nil, token.AccessorID)
	if err != nil || stored == nil {
		return nil, fmt.Errorf("bootstrap token missing after write: %v", err)
	}
	return &structs.ACLTokenUpsertResponse{Tokens: []*structs.ACLToken{stored}, WriteMeta: structs.WriteMeta{Index: index}}, nil
}

func bootstrapDone(index uint64) error {
	return BadRequest("ACL bootstrap already done (reset index: %d)", index)
}

// bootstrapResetIndex reads the operator's reset file; 0 when absent or
// unreadable.
func (e *ACLEndpoint) bootstrapResetIndex() uint64 {
	if e.srv.config.DataDir == "" {
		return 0
	}
	raw, err := os.ReadFile(filepath.Join(e.srv.config.DataDir, "server", ACLBootstrapResetFile))
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		e.srv.log.Warn("acl: bootstrap reset file does not hold an index", "error", err)
		return 0
	}
	return n
}

// UpsertPolicies creates or replaces policies (management only).
func (e *ACLEndpoint) UpsertPolicies(ctx context.Context, args *structs.ACLPolicyUpsertArgs) (*structs.ACLWriteResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.Policies) == 0 {
		return nil, BadRequest("Policies: at least one policy is required")
	}
	policies := make([]*structs.ACLPolicy, 0, len(args.Policies))
	for i, p := range args.Policies {
		if err := validatePolicy(p); err != nil {
			return nil, BadRequest("Policies[%d].%v", i, err)
		}
		policies = append(policies, &structs.ACLPolicy{Name: p.Name, Description: p.Description, Rules: p.Rules})
	}
	index, err := e.srv.raftApply(ctx, structs.ACLPolicyUpsertRequestType, &structs.ACLPolicyUpsertRequest{Policies: policies})
	return &structs.ACLWriteResponse{WriteMeta: structs.WriteMeta{Index: index}}, err
}

func validatePolicy(p *structs.ACLPolicy) error {
	switch {
	case p == nil:
		return fieldErr("Name", "missing policy")
	case !validPolicyName.MatchString(p.Name):
		return fieldErr("Name", "%q must be 1-128 letters, digits and dashes", p.Name)
	case len(p.Description) > maxACLDescriptionLength:
		return fieldErr("Description", "longer than %d characters", maxACLDescriptionLength)
	}
	if _, err := acl.Parse(p.Rules); err != nil {
		return fieldErr("Rules", "%v", err)
	}
	return nil
}

// DeletePolicies deletes policies by name (management only).
func (e *ACLEndpoint) DeletePolicies(ctx context.Context, args *structs.ACLPolicyDeleteArgs) (*structs.ACLWriteResponse, error) {
	exists := func(name string) bool { p, _ := e.srv.State().ACLPolicyByName(nil, name); return p != nil }
	return e.deleteACLObjects(ctx, args, aclDeletion{field: "Names", noun: "policy", key: "name", keys: args.Names, exists: exists},
		structs.ACLPolicyDeleteRequestType, &structs.ACLPolicyDeleteRequest{Names: args.Names})
}

// aclDeletion names the ACL objects a delete request asks for.
type aclDeletion struct {
	field, noun, key string // request field, object and key names, for errors
	keys             []string
	exists           func(key string) bool
}

// deleteACLObjects deletes ACL objects for a management token, and only
// when every one named exists: a missing one is a 404 naming it, and
// nothing is deleted.
func (e *ACLEndpoint) deleteACLObjects(ctx context.Context, args structs.RPCInfo, d aclDeletion, t structs.MessageType, req any) (*structs.ACLWriteResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(d.keys) == 0 {
		return nil, BadRequest("%s: at least one %s %s is required", d.field, d.noun, d.key)
	}
	for _, key := range d.keys {
		if !d.exists(key) {
			return nil, NotFound("ACL %s %q not found", d.noun, key)
		}
	}
	index, err := e.srv.raftApply(ctx, t, req)
	return &structs.ACLWriteResponse{WriteMeta: structs.WriteMeta{Index: index}}, notFoundAsCoded(err)
}

// ListPolicies lists every policy to a management token, and to others
// only the policies their token carries.
func (e *ACLEndpoint) ListPolicies(ctx context.Context, args *structs.ACLPolicyListRequest) (*structs.ACLPolicyListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLPolicyListResponse{}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		all, err := st.ACLPolicies(ws, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.Policies = slices.DeleteFunc(all, func(p *structs.ACLPolicy) bool { return !caller.MayReadPolicy(st, p.Name) })
		return st.Index(state.TableACLPolicies), nil
	})
	return reply, err
}

// GetPolicy answers one policy (nil when absent) to a caller allowed to
// read it.
func (e *ACLEndpoint) GetPolicy(ctx context.Context, args *structs.ACLPolicySpecificRequest) (*structs.SingleACLPolicyResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	if !caller.MayReadPolicy(e.srv.State(), args.Name) {
		return nil, ErrPermissionDenied
	}
	reply := &structs.SingleACLPolicyResponse{}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		p, err := st.ACLPolicyByName(ws, args.Name)
		reply.Policy = p
		if p != nil {
			return p.ModifyIndex, err
		}
		return st.Index(state.TableACLPolicies), err
	})
	return reply, err
}

// GetPolicySelf answers the policies the caller's token holds, its own
// and its roles' (GET /v1/acl/policy/self, Nomad's `acl policy self`): a
// client token reads them without being allowed to list policies. The
// anonymous caller gets the anonymous policy, a management token none
// (it holds no policy). Policies a token names that do not exist are left
// out.
func (e *ACLEndpoint) GetPolicySelf(ctx context.Context, args *structs.QueryOptions) (*structs.ACLPolicyListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLPolicyListResponse{}
	err = e.srv.blockingRead(ctx, args, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		reply.Policies = nil
		if caller.Token == nil || caller.Token.Type != structs.ACLManagementToken {
			for _, name := range auth.TokenPolicyNames(st, caller.Token) {
				p, err := st.ACLPolicyByName(ws, name)
				if err != nil {
					return 0, err
				}
				if p != nil {
					reply.Policies = append(reply.Policies, p)
				}
			}
		}
		return max(st.Index(state.TableACLPolicies), st.Index(state.TableACLRoles)), nil
	})
	return reply, err
}

// managementWrite requires ACLs on and a management token.
func (e *ACLEndpoint) managementWrite(args structs.RPCInfo) error {
	if err := e.enabled(); err != nil {
		return err
	}
	return e.srv.auth.Authorize(args, auth.AllowManagement)
}

func notFoundAsCoded(err error) error {
	if errors.Is(err, state.ErrNotFound) {
		return NotFound("%v", err)
	}
	return err
}

// fieldError is a validation problem of one named field; the endpoint
// prefixes the object's position ("Tokens[0].") and answers 400.
type fieldError struct{ field, msg string }

func (e fieldError) Error() string { return e.field + ": " + e.msg }

func fieldErr(field, format string, args ...any) error {
	return fieldError{field, fmt.Sprintf(format, args...)}
}

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
	index, err := e.srv.raftApply(ctx, structs.ACLRoleUpsertRequestType, &structs.ACLRoleUpsertRequest{Roles: roles})
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
	return e.deleteACLObjects(ctx, args, aclDeletion{field: "IDs", noun: "role", key: "ID", keys: args.IDs, exists: exists},
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

// UpsertAuthMethods creates or replaces auth methods by name (management
// only). The checks are authmethod.ValidateMethod's.
func (e *ACLEndpoint) UpsertAuthMethods(ctx context.Context, args *structs.ACLAuthMethodUpsertArgs) (*structs.ACLAuthMethodUpsertResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.AuthMethods) == 0 {
		return nil, BadRequest("AuthMethods: at least one auth method is required")
	}
	now := e.srv.now().UTC()
	methods := make([]*structs.ACLAuthMethod, 0, len(args.AuthMethods))
	for _, in := range args.AuthMethods {
		if err := authmethod.ValidateMethod(in); err != nil {
			return nil, err
		}
		m := in.Copy()
		m.CreateTime, m.ModifyTime, m.CreateIndex, m.ModifyIndex = now, now, 0, 0
		methods = append(methods, m)
	}
	index, err := e.srv.raftApply(ctx, structs.ACLAuthMethodUpsertRequestType, &structs.ACLAuthMethodUpsertRequest{AuthMethods: methods})
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLAuthMethodUpsertResponse{WriteMeta: structs.WriteMeta{Index: index}}
	for _, m := range methods {
		stored, err := e.srv.State().ACLAuthMethodByName(nil, m.Name)
		if err != nil {
			return nil, err
		}
		reply.AuthMethods = append(reply.AuthMethods, stored)
	}
	return reply, nil
}

// DeleteAuthMethods deletes auth methods, and their binding rules, by
// name (management only).
func (e *ACLEndpoint) DeleteAuthMethods(ctx context.Context, args *structs.ACLAuthMethodDeleteArgs) (*structs.ACLWriteResponse, error) {
	exists := func(name string) bool { m, _ := e.srv.State().ACLAuthMethodByName(nil, name); return m != nil }
	return e.deleteACLObjects(ctx, args, aclDeletion{field: "Names", noun: "auth method", key: "name", keys: args.Names, exists: exists},
		structs.ACLAuthMethodDeleteRequestType, &structs.ACLAuthMethodDeleteRequest{Names: args.Names})
}

// ListAuthMethods lists auth methods to any caller, as Nomad (a login
// needs to find the default method before it holds a token).
func (e *ACLEndpoint) ListAuthMethods(ctx context.Context, args *structs.ACLAuthMethodListRequest) (*structs.ACLAuthMethodListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	if _, err := e.srv.auth.ResolveCaller(args.AuthToken); err != nil {
		return nil, err // an unknown or expired secret is refused, as everywhere
	}
	reply := &structs.ACLAuthMethodListResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		all, err := st.ACLAuthMethods(ws)
		reply.AuthMethods = all
		return st.Index(state.TableACLAuthMethods), err
	})
	return reply, err
}

// GetAuthMethod answers one auth method (nil when absent); management only.
func (e *ACLEndpoint) GetAuthMethod(ctx context.Context, args *structs.ACLAuthMethodGetRequest) (*structs.ACLAuthMethodGetResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	reply := &structs.ACLAuthMethodGetResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		m, err := st.ACLAuthMethodByName(ws, args.Name)
		reply.AuthMethod = m
		if m != nil {
			return m.ModifyIndex, err
		}
		return st.Index(state.TableACLAuthMethods), err
	})
	return reply, err
}

// UpsertBindingRules creates binding rules (no ID) or updates them by ID
// (management only). The auth method must exist.
func (e *ACLEndpoint) UpsertBindingRules(ctx context.Context, args *structs.ACLBindingRuleUpsertArgs) (*structs.ACLBindingRuleUpsertResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.BindingRules) == 0 {
		return nil, BadRequest("BindingRules: at least one binding rule is required")
	}
	st, now := e.srv.State(), e.srv.now().UTC()
	rules := make([]*structs.ACLBindingRule, 0, len(args.BindingRules))
	for _, in := range args.BindingRules {
		if err := authmethod.ValidateRule(in); err != nil {
			return nil, err
		}
		if m, _ := st.ACLAuthMethodByName(nil, in.AuthMethod); m == nil {
			return nil, BadRequest("AuthMethod: auth method %q does not exist", in.AuthMethod)
		}
		r := in.Copy()
		r.CreateTime, r.ModifyTime, r.CreateIndex, r.ModifyIndex = now, now, 0, 0
		if r.ID == "" {
			r.ID = NewUUID()
		} else if existing, _ := st.ACLBindingRuleByID(nil, r.ID); existing == nil {
			return nil, BadRequest("ID: binding rule %q does not exist (leave ID empty to create one)", r.ID)
		}
		rules = append(rules, r)
	}
	index, err := e.srv.raftApply(ctx, structs.ACLBindingRuleUpsertRequestType, &structs.ACLBindingRuleUpsertRequest{BindingRules: rules})
	if errors.Is(err, state.ErrNotFound) {
		return nil, BadRequest("BindingRules: %v", err)
	}
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLBindingRuleUpsertResponse{WriteMeta: structs.WriteMeta{Index: index}}
	for _, r := range rules {
		stored, err := e.srv.State().ACLBindingRuleByID(nil, r.ID)
		if err != nil {
			return nil, err
		}
		reply.BindingRules = append(reply.BindingRules, stored)
	}
	return reply, nil
}

// DeleteBindingRules deletes binding rules by ID (management only).
func (e *ACLEndpoint) DeleteBindingRules(ctx context.Context, args *structs.ACLBindingRuleDeleteArgs) (*structs.ACLWriteResponse, error) {
	exists := func(id string) bool { r, _ := e.srv.State().ACLBindingRuleByID(nil, id); return r != nil }
	return e.deleteACLObjects(ctx, args, aclDeletion{field: "IDs", noun: "binding rule", key: "ID", keys: args.IDs, exists: exists},
		structs.ACLBindingRuleDeleteRequestType, &structs.ACLBindingRuleDeleteRequest{IDs: args.IDs})
}

// ListBindingRules lists binding rules (management only).
func (e *ACLEndpoint) ListBindingRules(ctx context.Context, args *structs.ACLBindingRuleListRequest) (*structs.ACLBindingRuleListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	reply := &structs.ACLBindingRuleListResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		all, err := st.ACLBindingRules(ws, args.Prefix)
		reply.BindingRules = all
		return st.Index(state.TableACLBindingRules), err
	})
	return reply, err
}

// GetBindingRule answers one binding rule (nil when absent); management only.
func (e *ACLEndpoint) GetBindingRule(ctx context.Context, args *structs.ACLBindingRuleGetRequest) (*structs.ACLBindingRuleGetResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	reply := &structs.ACLBindingRuleGetResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		r, err := st.ACLBindingRuleByID(ws, args.ID)
		reply.BindingRule = r
		if r != nil {
			return r.ModifyIndex, err
		}
		return st.Index(state.TableACLBindingRules), err
	})
	return reply, err
}

// Login exchanges a JWT for an ACL token: the auth method verifies it,
// its binding rules decide the token's roles and policies (bindings to
// roles or policies that do not exist are left out), and the token
// expires after the method's MaxTokenTTL. No matching binding is a 403.
func (e *ACLEndpoint) Login(ctx context.Context, args *structs.ACLLoginArgs) (*structs.ACLTokenUpsertResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	switch {
	case args.AuthMethodName == "":
		return nil, BadRequest("AuthMethodName: missing")
	case args.LoginToken == "":
		return nil, BadRequest("LoginToken: missing")
	}
	st := e.srv.State()
	m, err := st.ACLAuthMethodByName(nil, args.AuthMethodName)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, NotFound("ACL auth method %q not found", args.AuthMethodName)
	}
	if m.Type != structs.ACLAuthMethodTypeJWT {
		return nil, BadRequest("AuthMethodName: %q is an %s method; only JWT methods take a login token", m.Name, m.Type)
	}
	now := e.srv.now().UTC()
	claims, err := e.srv.authKeys.Verify(ctx, m, args.LoginToken, now)
	if err != nil {
		return nil, err
	}
	return e.mintLoginToken(ctx, m, claims, now)
}

// mintLoginToken writes the token a login's verified claims earn: its
// binding rules decide the token's roles and policies (bindings to roles
// or policies that do not exist are left out), and it expires after the
// method's MaxTokenTTL. No matching binding is a 403.
func (e *ACLEndpoint) mintLoginToken(ctx context.Context, m *structs.ACLAuthMethod, claims *authmethod.Claims, now time.Time) (*structs.ACLTokenUpsertResponse, error) {
	st := e.srv.State()
	rules, err := st.ACLBindingRulesByAuthMethod(nil, m.Name)
	if err != nil {
		return nil, err
	}
	b := authmethod.Bind(rules, claims)
	exp := now.Add(m.MaxTokenTTL)
	t := &structs.ACLToken{AccessorID: NewUUID(), SecretID: NewUUID(), Name: authmethod.TokenName(m, claims),
		Type: structs.ACLClientToken, Global: m.TokenLocality == structs.ACLAuthMethodTokenLocalityGlobal,
		CreateTime: now, ExpirationTime: &exp, ExpirationTTL: m.MaxTokenTTL}
	if b.Management {
		t.Type = structs.ACLManagementToken
	} else {
		for _, name := range b.Policies {
			if p, _ := st.ACLPolicyByName(nil, name); p != nil {
				t.Policies = append(t.Policies, name)
			}
		}
		for _, name := range b.Roles {
			if r, _ := st.ACLRoleByName(nil, name); r != nil {
				t.Roles = append(t.Roles, &structs.ACLTokenRoleLink{ID: r.ID, Name: r.Name})
			}
		}
		if len(t.Policies) == 0 && len(t.Roles) == 0 {
			return nil, authmethod.Refused("no binding rule of auth method %q bound an existing role or policy to this identity", m.Name)
		}
	}
	index, err := e.srv.raftApply(ctx, structs.ACLTokenUpsertRequestType, &structs.ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{t}})
	if err != nil {
		return nil, err
	}
	stored, err := e.srv.State().ACLTokenByAccessorID(nil, t.AccessorID)
	if err != nil || stored == nil {
		return nil, fmt.Errorf("login token missing after write: %v", err)
	}
	return &structs.ACLTokenUpsertResponse{Tokens: []*structs.ACLToken{stored}, WriteMeta: structs.WriteMeta{Index: index}}, nil
}

// maxPendingOIDC bounds the pending OIDC logins: auth-url needs no token,
// so without a bound anyone could grow the raft state.
const maxPendingOIDC = 1024

// oidcMethod reads an OIDC auth method by name (404 when absent, 400
// when not OIDC).
func (e *ACLEndpoint) oidcMethod(name string) (*structs.ACLAuthMethod, error) {
	m, err := e.srv.State().ACLAuthMethodByName(nil, name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, NotFound("ACL auth method %q not found", name)
	}
	if m.Type != structs.ACLAuthMethodTypeOIDC {
		return nil, BadRequest("AuthMethodName: %q is a %s method; the OIDC flow needs an OIDC method", m.Name, m.Type)
	}
	return m, nil
}

// OIDCAuthURL begins an OIDC login (Nomad's POST /v1/acl/oidc/auth-url):
// it stores the pending login through raft, keyed by a fresh state, so
// that any server may complete it and it completes once; and answers the
// provider's authorization URL. It needs no token.
func (e *ACLEndpoint) OIDCAuthURL(ctx context.Context, args *structs.ACLOIDCAuthURLArgs) (*structs.ACLOIDCAuthURLResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	for field, v := range map[string]string{"AuthMethodName": args.AuthMethodName, "RedirectURI": args.RedirectURI, "ClientNonce": args.ClientNonce} {
		if v == "" {
			return nil, BadRequest("%s: missing", field)
		}
	}
	m, err := e.oidcMethod(args.AuthMethodName)
	if err != nil {
		return nil, err
	}
	if err := authmethod.CheckRedirect(m, args.RedirectURI); err != nil {
		return nil, err
	}
	now := e.srv.now().UTC()
	pending, err := e.srv.State().OIDCAuthRequests(nil)
	if err != nil {
		return nil, err
	}
	live := 0
	for _, p := range pending {
		if now.Before(p.ExpiresAt) {
			live++
		}
	}
	if live >= maxPendingOIDC {
		return nil, NewCodedError(http.StatusTooManyRequests, "too many OIDC logins pending (%d); retry later", live)
	}
	p := &structs.OIDCAuthRequest{State: "st_" + NewUUID(), AuthMethodName: m.Name, ClientNonce: args.ClientNonce,
		RedirectURI: args.RedirectURI, ExpiresAt: now.Add(authmethod.OIDCRequestTTL)}
	if m.Config.OIDCEnablePKCE {
		p.PKCEVerifier = strings.ReplaceAll(NewUUID()+NewUUID(), "-", "")
	}
	u, err := e.srv.authKeys.AuthURL(ctx, m, p)
	if err != nil {
		return nil, err
	}
	index, err := e.srv.raftApply(ctx, structs.OIDCAuthRequestUpsertRequestType, &structs.OIDCAuthRequestUpsertRequest{Request: p, Now: now})
	if err != nil {
		return nil, err
	}
	return &structs.ACLOIDCAuthURLResponse{AuthURL: u, WriteMeta: structs.WriteMeta{Index: index}}, nil
}

// OIDCCompleteAuth finishes an OIDC login (Nomad's POST
// /v1/acl/oidc/complete-auth): the pending login named by State must
// match the method, client nonce and redirect URI; it is consumed
// through raft before the code is exchanged, so a state (and the code
// issued for it) is used once even across servers; then the provider's
// ID token is verified and the token minted as a JWT login's.
func (e *ACLEndpoint) OIDCCompleteAuth(ctx context.Context, args *structs.ACLOIDCCompleteAuthArgs) (*structs.ACLTokenUpsertResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	for field, v := range map[string]string{"AuthMethodName": args.AuthMethodName, "ClientNonce": args.ClientNonce,
		"State": args.State, "Code": args.Code, "RedirectURI": args.RedirectURI} {
		if v == "" {
			return nil, BadRequest("%s: missing", field)
		}
	}
	m, err := e.oidcMethod(args.AuthMethodName)
	if err != nil {
		return nil, err
	}
	now := e.srv.now().UTC()
	p, err := e.srv.State().OIDCAuthRequestByState(nil, args.State)
	if err != nil {
		return nil, err
	}
	refused := authmethod.Refused("the OIDC login's state is unknown, already used or expired")
	switch {
	case p == nil || !now.Before(p.ExpiresAt):
		return nil, refused
	case p.AuthMethodName != m.Name:
		return nil, authmethod.Refused("the OIDC login began with auth method %q, not %q", p.AuthMethodName, m.Name)
	case p.ClientNonce != args.ClientNonce:
		return nil, authmethod.Refused("ClientNonce does not match the one the OIDC login began with")
	case p.RedirectURI != args.RedirectURI:
		return nil, authmethod.Refused("RedirectURI %q is not the one the OIDC login began with", args.RedirectURI)
	}
	_, err = e.srv.raftApply(ctx, structs.OIDCAuthRequestDeleteRequestType, &structs.OIDCAuthRequestDeleteRequest{States: []string{p.State}})
	if errors.Is(err, state.ErrNotFound) {
		return nil, refused // completed meanwhile
	}
	if err != nil {
		return nil, err
	}
	claims, err := e.srv.authKeys.Complete(ctx, m, p, args.Code, args.Iss, now)
	if err != nil {
		return nil, err
	}
	return e.mintLoginToken(ctx, m, claims, now)
}
