package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/ui"
)

// uiRoutes serves the web UI at /ui/ (every page at Nomad's URL) and sends
// / and /ui there.
func (h *HTTPServer) uiRoutes() {
	h.mux.Handle("GET /ui/", ui.Handler())
	toUI := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/", http.StatusTemporaryRedirect)
	}
	h.mux.HandleFunc("GET /ui", toUI)
	h.mux.HandleFunc("GET /{$}", toUI)
}
