package agent

import (
	"net/http"
	"strconv"

	"github.com/drover-project/drover/internal/server"
)

// routes registers every /v1 endpoint. Unknown paths get a 404 naming them.
func (h *HTTPServer) routes() {
	h.jobRoutes()
	h.jobActionRoutes()
	h.jobLaunchRoutes()
	h.deploymentRoutes()
	h.evalRoutes()
	h.evalDeleteRoutes()
	h.allocRoutes()
	h.nodeRoutes()
	h.nodeWriteRoutes()
	h.statusRoutes()
	h.metricsRoutes()
	h.systemRoutes()
	h.operatorRoutes()
	h.snapshotRoutes()
	h.handle("/", func(w http.ResponseWriter, r *http.Request) (any, error) {
		return nil, server.NotFound("no such endpoint: %s %s", r.Method, r.URL.Path)
	})
}

func boolString(b bool) string   { return strconv.FormatBool(b) }
func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
