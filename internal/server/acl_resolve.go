package server

import (
	"crypto/subtle"
	"net/http"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ErrPermissionDenied is the answer to a token that is unknown, expired,
// or lacks the capability a request needs. It never says which.
var ErrPermissionDenied = &CodedError{Code: http.StatusForbidden, Msg: "Permission denied"}

// aclCacheSize bounds the resolved-token cache; past it the cache starts
// over (tokens are few, and a flood of bogus secrets is never cached).
const aclCacheSize = 4096

// aclCache holds tokens resolved at one version of the ACL tables.
type aclCache struct {
	mu       sync.Mutex
	index    uint64 // max index of acl_token and acl_policy when built
	bySecret map[string]resolvedToken
}

type resolvedToken struct {
	token *structs.ACLToken // nil for the anonymous caller
	acl   *acl.ACL
	at    time.Time
}

func (c *aclCache) get(secret string, index uint64, now time.Time, ttl time.Duration) (resolvedToken, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != index {
		c.index, c.bySecret = index, nil
		return resolvedToken{}, false
	}
	r, ok := c.bySecret[secret]
	if !ok || now.Sub(r.at) > ttl {
		return resolvedToken{}, false
	}
	return r, true
}

func (c *aclCache) put(secret string, index uint64, r resolvedToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != index || c.bySecret == nil || len(c.bySecret) >= aclCacheSize {
		c.index, c.bySecret = index, map[string]resolvedToken{}
	}
	c.bySecret[secret] = r
}

// InternalToken is a secret, made at start and never stored or sent,
// that this process's own agent uses for the lookups it makes on behalf
// of requests it has already authorized (which node runs an alloc, to
// forward to it). It resolves to management.
func (s *Server) InternalToken() string { return s.internalToken }

func (s *Server) isInternalToken(secret string) bool {
	return secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(s.internalToken)) == 1
}

// ACLEnabled reports whether requests are checked against tokens.
func (s *Server) ACLEnabled() bool { return s.config.ACL.Enabled }

// ResolveToken returns what the holder of secret may do. With ACLs off
// that is everything; "" is the anonymous caller (the `anonymous` policy,
// if it exists). An unknown or expired secret is ErrPermissionDenied.
func (s *Server) ResolveToken(secret string) (*acl.ACL, error) {
	r, err := s.resolveToken(secret)
	return r.acl, err
}

func (s *Server) resolveToken(secret string) (resolvedToken, error) {
	if !s.config.ACL.Enabled || s.isInternalToken(secret) {
		return resolvedToken{acl: acl.ManagementACL}, nil
	}
	st := s.State()
	index := max(st.Index(state.TableACLTokens), st.Index(state.TableACLPolicies), st.Index(state.TableACLRoles))
	now := s.now()
	r, ok := s.aclCache.get(secret, index, now, s.config.ACL.cacheTTL())
	if !ok {
		var err error
		if r, err = s.compileToken(st, secret); err != nil {
			return resolvedToken{}, err
		}
		r.at = now
		s.aclCache.put(secret, index, r)
	}
	if r.token.IsExpired(now) {
		return resolvedToken{}, ErrPermissionDenied
	}
	return r, nil
}

// compileToken looks the secret up and compiles its policies, its
// roles' included.
func (s *Server) compileToken(st *state.StateStore, secret string) (resolvedToken, error) {
	var token *structs.ACLToken
	if secret != "" {
		var err error
		if token, err = st.ACLTokenBySecretID(nil, secret); err != nil {
			return resolvedToken{}, err
		}
		if token == nil {
			return resolvedToken{}, ErrPermissionDenied
		}
		if token.IsManagement() {
			return resolvedToken{token: token, acl: acl.ManagementACL}, nil
		}
	}
	var policies []*acl.Policy
	for _, name := range tokenPolicyNames(st, token) {
		p, err := st.ACLPolicyByName(nil, name)
		if err != nil {
			return resolvedToken{}, err
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
		return resolvedToken{}, err
	}
	return resolvedToken{token: token, acl: a}, nil
}

// authorize resolves the request's token and allows the request when
// allowed says so; otherwise ErrPermissionDenied.
func (s *Server) authorize(args structs.RPCInfo, allowed func(*acl.ACL) bool) error {
	a, err := s.ResolveToken(args.RequestToken())
	if err != nil {
		return err
	}
	if !allowed(a) {
		return ErrPermissionDenied
	}
	return nil
}

// allowManagement is the check of management-only ACL endpoints.
var allowManagement = (*acl.ACL).IsManagement
