package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/client"
)

func (h *HTTPServer) clientGCRoutes() {
	for _, m := range []string{"GET", "PUT", "POST"} {
		h.nodeHandler(m+" /v1/client/gc", h.clientGC)
		h.allocHandler(m+" /v1/client/allocation/{id}/gc", h.clientAllocGC)
	}
}

// Both answer with an empty body, as Nomad does: the official client
// decodes nothing from them.

// clientGC answers /v1/client/gc: every finished alloc on the node is
// removed from it (directories and client state).
func (h *HTTPServer) clientGC(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error) {
	_, err := c.GCAll()
	return nil, err
}

// clientAllocGC answers /v1/client/allocation/:id/gc for a finished alloc;
// a running one gets 400.
func (h *HTTPServer) clientAllocGC(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	return nil, clientError(c.GCAlloc(allocID))
}
