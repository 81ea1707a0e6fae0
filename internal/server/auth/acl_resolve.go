package auth

import (
	"crypto/subtle"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ErrPermissionDenied is the answer to a token that is unknown, expired,
// or lacks the capability a request needs. It never says which.
var ErrPermissionDenied = &coded.Error{Code: http.StatusForbidden, Msg: "Permission denied"}

// aclCacheSize bounds the resolved-token cache; past it the cache starts
// over (tokens are few, and a flood of bogus secrets is never cached).
const aclCacheSize = 4096

// aclCache holds tokens resolved at one version of the ACL tables.
type aclCache struct {
	mu       sync.Mutex
	index    uint64 // max index of acl_token and acl_policy when built
	bySecret map[string]Caller
}

// Caller is a resolved token: the token (nil for the anonymous caller)
// and what its holder may do.
type Caller struct {
	Token *structs.ACLToken // nil for the anonymous caller
	ACL   *acl.ACL
	at    time.Time
}

func (c *aclCache) get(secret string, index uint64, now time.Time, ttl time.Duration) (Caller, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != index {
		c.index, c.bySecret = index, nil
		return Caller{}, false
	}
	r, ok := c.bySecret[secret]
	if !ok || now.Sub(r.at) > ttl {
		return Caller{}, false
	}
	return r, true
}

func (c *aclCache) put(secret string, index uint64, r Caller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != index || c.bySecret == nil || len(c.bySecret) >= aclCacheSize {
		c.index, c.bySecret = index, map[string]Caller{}
	}
	c.bySecret[secret] = r
}

// InternalToken is a secret, made at start and never stored or sent,
// that this process's own agent uses for the lookups it makes on behalf
// of requests it has already authorized (which node runs an alloc, to
// forward to it). It resolves to management.
func (s *Service) InternalToken() string { return s.internalToken }

func (s *Service) isInternalToken(secret string) bool {
	return secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(s.internalToken)) == 1
}

// ACLEnabled reports whether requests are checked against tokens.
func (s *Service) ACLEnabled() bool { return s.cfg.ACL.Enabled }

// ResolveToken returns what the holder of secret may do. With ACLs off
// that is everything; "" is the anonymous caller (the `anonymous` policy,
// if it exists). An unknown or expired secret is ErrPermissionDenied.
func (s *Service) ResolveToken(secret string) (*acl.ACL, error) {
	r, err := s.ResolveCaller(secret)
	return r.ACL, err
}

// ResolveCaller is ResolveToken with the token itself, for the ACL
// endpoints that answer the caller's own token, policies or roles.
func (s *Service) ResolveCaller(secret string) (Caller, error) {
	if !s.cfg.ACL.Enabled || s.isInternalToken(secret) {
		return Caller{ACL: acl.ManagementACL}, nil
	}
	st := s.srv.State()
	index := resolutionIndex(st)
	now := s.now()
	r, ok := s.aclCache.get(secret, index, now, s.cfg.ACL.cacheTTL())
	if !ok {
		var err error
		if r, err = s.compileToken(st, secret); err != nil {
			return Caller{}, err
		}
		r.at = now
		s.aclCache.put(secret, index, r)
	}
	if r.Token.IsExpired(now) {
		return Caller{}, ErrPermissionDenied
	}
	return r, nil
}

// ResolutionIndex is the highest index of the ACL tables a token's
// resolution reads (tokens, policies, roles): two resolutions of a secret
// between which it did not change compile the same ACL (the token may
// have expired meanwhile, which only refuses). The agent's reply cache
// keeps a reply only when it held from the caller's view to the reply.
func (s *Service) ResolutionIndex() uint64 { return resolutionIndex(s.srv.State()) }

func resolutionIndex(st *state.StateStore) uint64 {
	return max(st.Index(state.TableACLTokens), st.Index(state.TableACLPolicies), st.Index(state.TableACLRoles))
}

// compileToken looks the secret up and compiles its policies, its
// roles' included.
func (s *Service) compileToken(st *state.StateStore, secret string) (Caller, error) {
	var token *structs.ACLToken
	if secret != "" {
		var err error
		if token, err = st.ACLTokenBySecretID(nil, secret); err != nil {
			return Caller{}, err
		}
		if token == nil {
			return Caller{}, ErrPermissionDenied
		}
		if token.IsManagement() {
			return Caller{Token: token, ACL: acl.ManagementACL}, nil
		}
	}
	var policies []*acl.Policy
	for _, name := range TokenPolicyNames(st, token) {
		p, err := st.ACLPolicyByName(nil, name)
		if err != nil {
			return Caller{}, err
		}
		if p == nil {
			continue // a deleted policy grants nothing
		}
		parsed, err := acl.Parse(p.Rules)
		if err != nil {
			// Rules are checked on write; a policy that no longer parses
			// (an older server's syntax) grants nothing rather than failing
			// every request of its tokens.
			s.log.Warn("acl: stored policy does not parse", "policy", name, "error", err)
			continue
		}
		policies = append(policies, parsed)
	}
	a, err := acl.New(policies)
	if err != nil {
		return Caller{}, err
	}
	return Caller{Token: token, ACL: a}, nil
}

// Authorize resolves the request's token and allows the request when
// allowed says so; otherwise ErrPermissionDenied.
func (s *Service) Authorize(args structs.RPCInfo, allowed func(*acl.ACL) bool) error {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil {
		return err
	}
	if !allowed(a) {
		return ErrPermissionDenied
	}
	return nil
}

// AllowManagement is the check of management-only ACL endpoints.
var AllowManagement = (*acl.ACL).IsManagement

// TokenPolicyNames are the policies a token holds: its own and those of
// the roles it links that still exist ("anonymous" for no token).
func TokenPolicyNames(st *state.StateStore, token *structs.ACLToken) []string {
	if token == nil {
		return []string{structs.AnonymousPolicyName}
	}
	names := slices.Clone(token.Policies)
	for _, id := range token.RoleIDs() {
		if r, _ := st.ACLRoleByID(nil, id); r != nil {
			names = append(names, r.PolicyNames()...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// MayReadPolicy: management reads every policy, other callers those
// their token holds, directly or through a role (the anonymous caller:
// the anonymous policy).
func (r Caller) MayReadPolicy(st *state.StateStore, name string) bool {
	return r.ACL.IsManagement() || slices.Contains(TokenPolicyNames(st, r.Token), name)
}

// MayReadRole: management reads every role, a token the roles it links.
func (r Caller) MayReadRole(id string) bool {
	if r.ACL.IsManagement() {
		return true
	}
	return r.Token != nil && slices.Contains(r.Token.RoleIDs(), id)
}
