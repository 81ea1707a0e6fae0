package agent

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/server"
)

// routes registers every /v1 endpoint this agent serves: the cluster API
// when it runs a server, the client API (/v1/client/...) always (it
// answers for the local client, or forwards). Unknown paths get a 404
// naming them; cluster paths on a client-only agent a 501 saying why.
func (h *HTTPServer) routes() {
	if h.srv != nil {
		h.serverRoutes()
	}
	h.clientRoutes()
	h.agentRoutes()
	h.agentServerRoutes()
	h.agentKeyringRoutes()
	h.agentDebugRoutes()
	h.metricsRoutes()
	h.uiRoutes()
	h.handle("/", func(w http.ResponseWriter, r *http.Request) (any, error) {
		if h.srv == nil && strings.HasPrefix(r.URL.Path, "/v1/") {
			return nil, server.NewCodedError(http.StatusNotImplemented,
				"this agent runs no server: send %s to a server agent's HTTP address", r.URL.Path)
		}
		return nil, server.NotFound("no such endpoint: %s %s", r.Method, r.URL.Path)
	})
}

func (h *HTTPServer) serverRoutes() {
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
	h.eventRoutes()
	h.systemRoutes()
	h.operatorRoutes()
	h.snapshotRoutes()
	h.searchRoutes()
	h.regionRoutes()
	h.jobHistoryRoutes()
	h.nodePoolRoutes()
	h.namespaceRoutes()
	h.serviceRoutes()
	h.variableRoutes()
	h.clusterRoutes()
	h.aclRoutes()
}

func boolString(b bool) string   { return strconv.FormatBool(b) }
func uintString(n uint64) string { return strconv.FormatUint(n, 10) }
