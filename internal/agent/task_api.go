package agent

import (
	"context"
	"net/http"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/server/auth"
)

// taskAPIHandler is the agent's HTTP API as tasks reach it on their
// secrets/api.sock (Nomad's Task API). As Nomad documents it, the Task API
// always requires authentication, ACLs on or off, and the anonymous policy
// is not available through it: a request must carry a workload identity
// (a task's default identity: signature, expiry, audience, live
// allocation; named identities are refused) or, with ACLs on, an ACL
// token that resolves. Once authenticated, the request is the agent's
// HTTP API with its usual per-endpoint checks.
//
// On a client-only agent the servers answer the forwarded request and
// check its token there when ACLs are on; with ACLs off such an agent
// cannot verify a workload identity itself, so its Task API refuses every
// request saying so (Drover differs from Nomad there).
type taskAPIHandler struct{ h *HTTPServer }

func (t taskAPIHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := t.h.authenticateTaskAPI(r.Context(), requestToken(r)); err != nil {
		t.h.writeError(w, r, err)
		return
	}
	t.h.ServeHTTP(w, r)
}

// authenticateTaskAPI checks that a Task API request carries a credential
// (see taskAPIHandler).
func (h *HTTPServer) authenticateTaskAPI(ctx context.Context, token string) error {
	if token == "" {
		return server.NewCodedError(http.StatusForbidden,
			"Permission denied: the Task API requires a token (the task's workload identity: identity { env = true } sets NOMAD_TOKEN)")
	}
	if h.srv == nil {
		if !h.aclEnabled || h.remoteACL == nil {
			return server.NewCodedError(http.StatusForbidden,
				"Permission denied: this client-only agent cannot verify tokens with ACLs off, so its Task API is closed")
		}
		// ACLs on: the servers answering the forwarded request check it;
		// an ACL secret is resolved here already.
		if auth.LooksLikeJWT(token) {
			return nil
		}
		_, err := h.remoteACL(ctx, token)
		return err
	}
	a := h.srv.Auth()
	if auth.LooksLikeJWT(token) {
		_, err := a.VerifyIdentity(token)
		return err
	}
	if !a.ACLEnabled() {
		return server.NewCodedError(http.StatusForbidden,
			"Permission denied: with ACLs off the Task API accepts only workload identities")
	}
	_, err := a.ResolveToken(token)
	return err
}
