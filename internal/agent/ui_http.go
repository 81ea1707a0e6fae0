package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/ui"
)

// uiRoutes serves the web UI at /ui/ (every page at Nomad's URL) and sends
// / and /ui there.
func (h *HTTPServer) uiRoutes() {
	h.mux.Handle("GET /ui/", h.uiGate(ui.Handler()))
	toUI := h.uiGate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusTemporaryRedirect)
	}))
	h.mux.Handle("GET /ui", toUI)
	h.mux.Handle("GET /{$}", toUI)
}

// uiGate answers 404 while the agent's ui { enabled = false }.
func (h *HTTPServer) uiGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.uiOff {
			http.Error(w, "the web UI is off on this agent (ui { enabled = false })", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}
