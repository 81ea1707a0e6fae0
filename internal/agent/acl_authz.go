package agent

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Every request is checked once. A cluster route whose handler is a call
// of a registered server method (serverRoute.by) is checked by that call,
// on the server that answers, with the method's rule (server/access.go).
// Every other request is checked here, before it reaches its handler: the
// route pattern it matched names a rule (aclRules), the rule names the
// capability the caller's token needs, and a route without a rule needs a
// management token. So a route added without thinking about ACLs fails
// closed, and TestACLRules_EveryRouteHasARule says which one it was.

// aclCheck decides whether a resolved ACL may make the request.
type aclCheck func(c *authzRequest) bool

// aclRule is the check of one route: read for GET and HEAD, write for
// the other methods. (Lists with namespace=* are let through and filtered
// by the endpoints, which answer only what the caller may see.)
type aclRule struct {
	read, write aclCheck
}

// authzRequest is one request being checked.
type authzRequest struct {
	h       *HTTPServer
	r       *http.Request
	acl     *acl.ACL
	pattern string
}

// authorizeRequest resolves the caller's token and checks the route's
// rule.
func (h *HTTPServer) authorizeRequest(r *http.Request) (*http.Request, error) {
	_, pattern := h.mux.Handler(r)
	if _, ok := h.methodChecked[pattern]; ok {
		return r, nil // the handler's method call checks the caller
	}
	path := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	rule, ok := aclRules[path]
	if !ok {
		rule = aclRule{read: management, write: management}
	}
	check := rule.write
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		check = rule.read
	}
	if check == nil {
		check = management
	}
	if isPublic(check) {
		return r, nil
	}
	if path == execPath && r.URL.Query().Get("ws_handshake") == "true" {
		// A browser cannot set a websocket's headers: with ws_handshake
		// (Nomad's) the token comes in the socket's first frame, and
		// the handler makes this same check with it before running
		// anything (execHandshake).
		return r.WithContext(context.WithValue(r.Context(), deferredAuthKey{}, deferredAuth(func(secret string) error {
			a, err := h.resolveACL(r.Context(), secret)
			if err != nil {
				return err
			}
			if !check(&authzRequest{h: h, r: r, acl: a, pattern: path}) {
				return server.ErrPermissionDenied
			}
			return nil
		}))), nil
	}
	if path == snapshotPath && h.validMigrateToken(r, (&authzRequest{r: r, pattern: path}).pathValue("id")) {
		// A previous alloc's data, asked for by the client of the alloc
		// that replaces it: the migrate token is its credential.
		return r, nil
	}
	a, err := h.resolveACL(r.Context(), requestToken(r))
	if err != nil {
		return r, err
	}
	if !check(&authzRequest{h: h, r: r, acl: a, pattern: path}) {
		return r, server.ErrPermissionDenied
	}
	return r, nil
}

// execPath is the exec websocket's route, the one whose check may wait
// for the socket's first frame (ws_handshake).
const execPath = "/v1/client/allocation/{id}/exec"

// deferredAuth is the check authorizeRequest left to the handler: it
// answers nil when secret may make the request.
type deferredAuth func(secret string) error

type deferredAuthKey struct{}

// resolveACL resolves a secret: by this agent's server, else by asking
// the servers over RPC (a client-only agent).
func (h *HTTPServer) resolveACL(ctx context.Context, secret string) (*acl.ACL, error) {
	if h.srv != nil {
		return h.srv.Auth().ResolveToken(secret)
	}
	if h.remoteACL == nil {
		return nil, server.ErrPermissionDenied
	}
	return h.remoteACL(ctx, secret)
}

// remoteResolver compiles the ACL of a secret from what the servers
// answer.
func remoteResolver(resolve func(ctx context.Context, secret string) (*structs.ResolveACLTokenResponse, error)) func(context.Context, string) (*acl.ACL, error) {
	return func(ctx context.Context, secret string) (*acl.ACL, error) {
		reply, err := resolve(ctx, secret)
		if err != nil {
			if strings.Contains(err.Error(), server.ErrPermissionDenied.Msg) {
				return nil, server.ErrPermissionDenied
			}
			return nil, server.NewCodedError(http.StatusServiceUnavailable, "resolving the ACL token with the servers: %v", err)
		}
		if reply.Disabled || reply.Token.IsManagement() {
			return acl.ManagementACL, nil
		}
		var policies []*acl.Policy
		for _, p := range reply.Policies {
			if parsed, err := acl.Parse(p.Rules); err == nil {
				policies = append(policies, parsed)
			}
		}
		return acl.New(policies)
	}
}

// requestNamespace is the namespace the request addresses (?namespace=,
// default "default").
func (c *authzRequest) requestNamespace() string {
	if ns := c.r.URL.Query().Get("namespace"); ns != "" {
		return ns
	}
	return structs.DefaultNamespace
}

// pathValue extracts a {name} segment of the matched pattern from the
// URL (the mux sets path values only once it dispatches).
func (c *authzRequest) pathValue(name string) string {
	pat := strings.Split(strings.Trim(c.pattern, "/"), "/")
	got := strings.Split(strings.Trim(c.r.URL.Path, "/"), "/")
	for i, seg := range pat {
		if seg == "{"+name+"}" && i < len(got) {
			return got[i]
		}
	}
	return ""
}

// The checks.

var public aclCheck = func(*authzRequest) bool { return true }

func isPublic(c aclCheck) bool {
	return c != nil && ptrOf(c) == ptrOf(public)
}

func management(c *authzRequest) bool { return c.acl.IsManagement() }

// anyToken allows every caller whose token resolves (anonymous too).
func anyToken(*authzRequest) bool { return true }

func nodeRead(c *authzRequest) bool   { return c.acl.AllowNodeRead() }
func nodeWrite(c *authzRequest) bool  { return c.acl.AllowNodeWrite() }
func agentRead(c *authzRequest) bool  { return c.acl.AllowAgentRead() }
func agentWrite(c *authzRequest) bool { return c.acl.AllowAgentWrite() }

// ns requires one of caps in the request's namespace.
func ns(caps ...string) aclCheck {
	return func(c *authzRequest) bool { return anyCap(c.acl, c.requestNamespace(), caps) }
}

// object requires one of caps in the namespace of the alloc, eval or
// deployment named by the {id} path segment (its IDs are global); an
// unknown object is checked against the request's namespace and then
// answered 404 by the handler.
func object(kind string, caps ...string) aclCheck {
	return func(c *authzRequest) bool {
		target, ok := c.h.objectNamespace(kind, c.pathValue("id"))
		if !ok {
			target = c.requestNamespace()
		}
		return anyCap(c.acl, target, caps)
	}
}

func anyCap(a *acl.ACL, namespace string, caps []string) bool {
	for _, cp := range caps {
		if a.AllowNamespaceOperation(namespace, cp) {
			return true
		}
	}
	return false
}

// objectNamespace finds an object's namespace: from the server, else (a
// client-only agent) from the local client's allocation.
func (h *HTTPServer) objectNamespace(kind, id string) (string, bool) {
	if id == "" {
		return "", false
	}
	if h.srv != nil {
		return h.srv.Auth().NamespaceOf(kind, id)
	}
	if c := h.client(); c != nil && kind == server.ObjectAlloc && c.HasAlloc(id) {
		if a, err := c.AllocState(id); err == nil && a != nil {
			return a.Namespace, true
		}
	}
	return "", false
}

func ptrOf(c aclCheck) uintptr { return reflect.ValueOf(c).Pointer() }
