package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/client"
)

// snapshotPath is the route a client fetches a previous alloc's
// migratable data from (ephemeral_disk { migrate = true }).
const snapshotPath = "/v1/client/allocation/{id}/snapshot"

func (h *HTTPServer) clientSnapshotRoutes() {
	h.allocHandler("GET "+snapshotPath, h.allocSnapshot)
}

// allocSnapshot answers GET /v1/client/allocation/:id/snapshot: a tar of
// the alloc's alloc/data and its tasks' local/ (client.SnapshotAlloc).
// Who may ask is decided before (authorizeRequest): the alloc's migrate
// token for this node, which the servers give only to the client of the
// alloc that replaces it (Nomad's only check, ValidateMigrateToken), or a
// token with read-fs in the alloc's namespace (Drover's addition: read-fs
// reads every one of these files through /v1/client/fs already). A
// failure once the stream started cuts it short, and the tar's missing
// end tells the reader.
func (h *HTTPServer) allocSnapshot(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	w.Header().Set("Content-Type", "application/x-tar")
	if err := c.SnapshotAlloc(allocID, w); err != nil {
		h.log.Warn("alloc snapshot failed", "alloc_id", allocID, "error", err)
		panic(http.ErrAbortHandler) // abort the response: never a complete-looking tar
	}
	return nil, nil
}

// validMigrateToken reports whether r carries the migrate token of the
// alloc its path names, for this agent's client.
func (h *HTTPServer) validMigrateToken(r *http.Request, allocID string) bool {
	c := h.client()
	return c != nil && allocID != "" && c.ValidMigrateToken(allocID, requestToken(r))
}
