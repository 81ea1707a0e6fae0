package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/server"
)

// agentKeyringRoutes serve `operator gossip keyring`. Drover's gossip
// (serf) is not encrypted, so there is no gossip keyring to list or
// change: every operation is refused with a 400 that says so, where a
// Nomad server without an encrypt key fails too.
func (h *HTTPServer) agentKeyringRoutes() {
	h.handle("GET /v1/agent/keyring/list", h.agentKeyringUnsupported)
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/agent/keyring/install", h.agentKeyringUnsupported)
		h.handle(m+" /v1/agent/keyring/use", h.agentKeyringUnsupported)
		h.handle(m+" /v1/agent/keyring/remove", h.agentKeyringUnsupported)
	}
}

func (h *HTTPServer) agentKeyringUnsupported(w http.ResponseWriter, r *http.Request) (any, error) {
	return nil, server.BadRequest("gossip keyring: gossip encryption is not supported; there is no gossip key to list or change")
}
