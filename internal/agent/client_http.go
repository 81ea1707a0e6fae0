package agent

// clientRoutes registers the /v1/client endpoints (logs, fs, stats,
// restart, signal). They land with the client HTTP work.
func (h *HTTPServer) clientRoutes() {}
