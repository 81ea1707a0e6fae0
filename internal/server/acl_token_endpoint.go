package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// UpsertTokens creates tokens (no AccessorID; IDs and times are decided
// here, before raft), uploads client tokens with chosen IDs, or updates
// existing tokens' name, type and policies. Management only.
func (e *ACLEndpoint) UpsertTokens(ctx context.Context, args *structs.ACLTokenUpsertArgs) (*structs.ACLTokenUpsertResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.Tokens) == 0 {
		return nil, BadRequest("Tokens: at least one token is required")
	}
	st := e.srv.State()
	tokens := make([]*structs.ACLToken, 0, len(args.Tokens))
	for i, in := range args.Tokens {
		t, err := e.prepareToken(st, in)
		if err != nil {
			return nil, BadRequest("Tokens[%d].%v", i, err)
		}
		tokens = append(tokens, t)
	}
	index, err := e.srv.raftApply(ctx, structs.ACLTokenUpsertRequestType, &structs.ACLTokenUpsertRequest{Tokens: tokens})
	if err != nil {
		return nil, err
	}
	reply := &structs.ACLTokenUpsertResponse{WriteMeta: structs.WriteMeta{Index: index}}
	for _, t := range tokens {
		stored, err := e.srv.State().ACLTokenByAccessorID(nil, t.AccessorID)
		if err != nil {
			return nil, err
		}
		reply.Tokens = append(reply.Tokens, stored)
	}
	return reply, nil
}

// prepareToken validates one token and builds what raft will store.
func (e *ACLEndpoint) prepareToken(st *state.StateStore, in *structs.ACLToken) (*structs.ACLToken, error) {
	if in == nil {
		return nil, fieldErr("Type", "missing token")
	}
	if err := e.validateToken(st, in); err != nil {
		return nil, err
	}
	roles, err := resolveRoleLinks(st, in.Roles)
	if err != nil {
		return nil, err
	}
	in = in.Copy()
	in.Roles = roles
	var existing *structs.ACLToken
	if in.AccessorID != "" {
		if !isUUID(in.AccessorID) {
			return nil, fieldErr("AccessorID", "must be a UUID")
		}
		existing, _ = st.ACLTokenByAccessorID(nil, in.AccessorID)
	}
	if existing != nil {
		return updatedToken(existing, in)
	}
	return e.newToken(st, in)
}

func (e *ACLEndpoint) validateToken(st *state.StateStore, in *structs.ACLToken) error {
	switch in.Type {
	case structs.ACLClientToken:
		if len(in.Policies) == 0 && len(in.Roles) == 0 {
			return fieldErr("Policies", "a client token needs at least one policy or role")
		}
	case structs.ACLManagementToken:
		if len(in.Policies) != 0 || len(in.Roles) != 0 {
			return fieldErr("Policies", "a management token takes no policies or roles")
		}
	default:
		return fieldErr("Type", "%q must be client or management", in.Type)
	}
	if len(in.Name) > maxACLNameLength {
		return fieldErr("Name", "longer than %d characters", maxACLNameLength)
	}
	for _, name := range in.Policies {
		if p, _ := st.ACLPolicyByName(nil, name); p == nil {
			return fieldErr("Policies", "policy %q does not exist", name)
		}
	}
	return nil
}

// resolveRoleLinks turns the links a caller gave (by ID, or by name when
// no ID) into stored links naming both, once each.
func resolveRoleLinks(st *state.StateStore, in []*structs.ACLTokenRoleLink) ([]*structs.ACLTokenRoleLink, error) {
	var out []*structs.ACLTokenRoleLink
	for _, link := range in {
		var r *structs.ACLRole
		switch {
		case link == nil || link.ID == "" && link.Name == "":
			return nil, fieldErr("Roles", "a role link needs an ID or a name")
		case link.ID != "":
			r, _ = st.ACLRoleByID(nil, link.ID)
		default:
			r, _ = st.ACLRoleByName(nil, link.Name)
		}
		if r == nil {
			return nil, fieldErr("Roles", "role %q does not exist", link.ID+link.Name)
		}
		if !slices.ContainsFunc(out, func(l *structs.ACLTokenRoleLink) bool { return l.ID == r.ID }) {
			out = append(out, &structs.ACLTokenRoleLink{ID: r.ID, Name: r.Name})
		}
	}
	return out, nil
}

// newToken creates a token: a fresh accessor and secret unless a client
// token is uploaded with both; expiration from ExpirationTTL.
func (e *ACLEndpoint) newToken(st *state.StateStore, in *structs.ACLToken) (*structs.ACLToken, error) {
	now := e.srv.now().UTC()
	t := &structs.ACLToken{
		AccessorID: NewUUID(), SecretID: NewUUID(), Name: in.Name, Type: in.Type,
		Policies: slices.Clone(in.Policies), Roles: in.Roles, Global: in.Global, CreateTime: now,
	}
	if in.AccessorID != "" || in.SecretID != "" {
		if in.Type != structs.ACLClientToken || in.AccessorID == "" || !isUUID(in.SecretID) {
			return nil, fieldErr("SecretID", "only a client token with both a UUID AccessorID and SecretID can be uploaded")
		}
		if other, _ := st.ACLTokenBySecretID(nil, in.SecretID); other != nil {
			return nil, fieldErr("SecretID", "already in use")
		}
		t.AccessorID, t.SecretID = in.AccessorID, in.SecretID
	}
	switch {
	case in.ExpirationTTL != 0 && in.ExpirationTime != nil:
		return nil, fieldErr("ExpirationTTL", "set either ExpirationTTL or ExpirationTime, not both")
	case in.ExpirationTTL < 0:
		return nil, fieldErr("ExpirationTTL", "must not be negative")
	case in.ExpirationTTL != 0:
		if in.ExpirationTTL < minACLTokenTTL || in.ExpirationTTL > maxACLTokenTTL {
			return nil, fieldErr("ExpirationTTL", "%v is outside %v..%v", in.ExpirationTTL, minACLTokenTTL, maxACLTokenTTL)
		}
		exp := now.Add(in.ExpirationTTL)
		t.ExpirationTime, t.ExpirationTTL = &exp, in.ExpirationTTL
	case in.ExpirationTime != nil:
		if !in.ExpirationTime.After(now) {
			return nil, fieldErr("ExpirationTime", "must be in the future")
		}
		exp := in.ExpirationTime.UTC()
		t.ExpirationTime = &exp
	}
	return t, nil
}

// updatedToken applies an update: name, type, policies and roles change;
// the secret, creation and expiration never do.
func updatedToken(existing, in *structs.ACLToken) (*structs.ACLToken, error) {
	if in.SecretID != "" && in.SecretID != existing.SecretID {
		return nil, fieldErr("SecretID", "cannot be changed")
	}
	if in.Global != existing.Global {
		return nil, fieldErr("Global", "cannot be changed")
	}
	if in.ExpirationTTL != 0 && in.ExpirationTTL != existing.ExpirationTTL ||
		in.ExpirationTime != nil && (existing.ExpirationTime == nil || !in.ExpirationTime.Equal(*existing.ExpirationTime)) {
		return nil, fieldErr("ExpirationTTL", "the expiration of a token cannot be changed")
	}
	t := existing.Copy()
	t.Name, t.Type, t.Policies, t.Roles = in.Name, in.Type, slices.Clone(in.Policies), in.Roles
	return t, nil
}

// DeleteTokens deletes tokens by accessor (management only).
func (e *ACLEndpoint) DeleteTokens(ctx context.Context, args *structs.ACLTokenDeleteArgs) (*structs.ACLWriteResponse, error) {
	if err := e.managementWrite(args); err != nil {
		return nil, err
	}
	if len(args.AccessorIDs) == 0 {
		return nil, BadRequest("AccessorIDs: at least one accessor is required")
	}
	for _, id := range args.AccessorIDs {
		if t, _ := e.srv.State().ACLTokenByAccessorID(nil, id); t == nil {
			return nil, NotFound("ACL token %q not found", id)
		}
	}
	index, err := e.srv.raftApply(ctx, structs.ACLTokenDeleteRequestType, &structs.ACLTokenDeleteRequest{AccessorIDs: args.AccessorIDs})
	return &structs.ACLWriteResponse{WriteMeta: structs.WriteMeta{Index: index}}, notFoundAsCoded(err)
}

// ListTokens lists tokens without their secrets (management only).
func (e *ACLEndpoint) ListTokens(ctx context.Context, args *structs.ACLTokenListRequest) (*structs.ACLTokenListResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	if err := e.srv.auth.Authorize(args, auth.AllowManagement); err != nil {
		return nil, err
	}
	reply := &structs.ACLTokenListResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		tokens, err := st.ACLTokens(ws, args.Prefix)
		reply.Tokens = make([]*structs.ACLToken, 0, len(tokens))
		for _, t := range tokens {
			c := t.Copy()
			c.SecretID = ""
			reply.Tokens = append(reply.Tokens, c)
		}
		return st.Index(state.TableACLTokens), err
	})
	return reply, err
}

// GetToken answers one token to a management token, or to the token's own
// holder.
func (e *ACLEndpoint) GetToken(ctx context.Context, args *structs.ACLTokenSpecificRequest) (*structs.SingleACLTokenResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	if !caller.ACL.IsManagement() && (caller.Token == nil || caller.Token.AccessorID != args.AccessorID) {
		return nil, ErrPermissionDenied
	}
	reply := &structs.SingleACLTokenResponse{}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		t, err := st.ACLTokenByAccessorID(ws, args.AccessorID)
		reply.Token = t
		if t != nil {
			return t.ModifyIndex, err
		}
		return st.Index(state.TableACLTokens), err
	})
	return reply, err
}

// GetTokenSelf answers the caller's own token.
func (e *ACLEndpoint) GetTokenSelf(ctx context.Context, args *structs.QueryOptions) (*structs.SingleACLTokenResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	if caller.Token == nil {
		return nil, ErrPermissionDenied
	}
	return &structs.SingleACLTokenResponse{Token: caller.Token, QueryMeta: e.srv.queryMeta(caller.Token.ModifyIndex)}, nil
}

// ResolveToken answers the token a secret belongs to (nil for ""),
// refusing unknown and expired secrets. Client agents use it to check
// requests for allocations they run.
func (e *ACLEndpoint) ResolveToken(ctx context.Context, args *structs.ResolveACLTokenRequest) (*structs.ResolveACLTokenResponse, error) {
	if !e.srv.auth.ACLEnabled() {
		return &structs.ResolveACLTokenResponse{Disabled: true}, nil
	}
	r, err := e.srv.auth.ResolveCaller(args.SecretID)
	if err != nil {
		return nil, err
	}
	st := e.srv.State()
	reply := &structs.ResolveACLTokenResponse{Token: r.Token, QueryMeta: e.srv.queryMeta(st.Index(state.TableACLTokens))}
	if !r.Token.IsManagement() {
		for _, name := range auth.TokenPolicyNames(st, r.Token) {
			if p, _ := st.ACLPolicyByName(nil, name); p != nil {
				reply.Policies = append(reply.Policies, p)
			}
		}
	}
	return reply, nil
}

func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// OneTimeTokenTTL is how long a one-time token can be exchanged (Nomad's
// 10 minutes).
const OneTimeTokenTTL = 10 * time.Minute

// UpsertOneTimeToken creates a one-time token for the caller's own token
// (`drover ui -authenticate`); the anonymous caller has none to give.
func (e *ACLEndpoint) UpsertOneTimeToken(ctx context.Context, args *structs.ACLOneTimeTokenUpsertArgs) (*structs.ACLOneTimeTokenUpsertResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	caller, err := e.srv.auth.ResolveCaller(args.AuthToken)
	if err != nil {
		return nil, err
	}
	if caller.Token == nil {
		return nil, ErrPermissionDenied
	}
	ott := &structs.OneTimeToken{OneTimeSecretID: NewUUID(), AccessorID: caller.Token.AccessorID,
		ExpiresAt: e.srv.now().UTC().Add(OneTimeTokenTTL)}
	index, err := e.srv.raftApply(ctx, structs.OneTimeTokenUpsertRequestType, &structs.OneTimeTokenUpsertRequest{OneTimeToken: ott})
	if err != nil {
		return nil, err
	}
	stored, err := e.srv.State().OneTimeTokenBySecret(nil, ott.OneTimeSecretID)
	if err != nil || stored == nil {
		return nil, fmt.Errorf("one-time token missing after write: %v", err)
	}
	return &structs.ACLOneTimeTokenUpsertResponse{OneTimeToken: stored, WriteMeta: structs.WriteMeta{Index: index}}, nil
}

// ExchangeOneTimeToken trades a one-time secret, once and before it
// expires, for the ACL token it was made for. It needs no token: the
// secret is the credential. An unknown, used or expired secret is a 403.
func (e *ACLEndpoint) ExchangeOneTimeToken(ctx context.Context, args *structs.ACLOneTimeTokenExchangeArgs) (*structs.SingleACLTokenResponse, error) {
	if err := e.enabled(); err != nil {
		return nil, err
	}
	if args.OneTimeSecretID == "" {
		return nil, BadRequest("OneTimeSecretID: missing")
	}
	st := e.srv.State()
	ott, err := st.OneTimeTokenBySecret(nil, args.OneTimeSecretID)
	if err != nil {
		return nil, err
	}
	refused := NewCodedError(http.StatusForbidden, "Permission denied: one-time token unknown, already used or expired")
	if ott == nil || !e.srv.now().Before(ott.ExpiresAt) {
		return nil, refused
	}
	token, err := st.ACLTokenByAccessorID(nil, ott.AccessorID)
	if err != nil {
		return nil, err
	}
	if token == nil || token.IsExpired(e.srv.now()) {
		return nil, refused
	}
	index, err := e.srv.raftApply(ctx, structs.OneTimeTokenDeleteRequestType, &structs.OneTimeTokenDeleteRequest{Secrets: []string{ott.OneTimeSecretID}})
	if errors.Is(err, state.ErrNotFound) {
		return nil, refused // exchanged meanwhile
	}
	if err != nil {
		return nil, err
	}
	return &structs.SingleACLTokenResponse{Token: token, QueryMeta: e.srv.queryMeta(index)}, nil
}
