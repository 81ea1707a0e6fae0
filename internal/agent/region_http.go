package agent

import "net/http"

func (h *HTTPServer) regionRoutes() {
	h.handle("GET /v1/regions", h.regionList)
}

// regionList answers GET /v1/regions.
func (h *HTTPServer) regionList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := h.srv.Region.List(r.Context(), &q)
	if err != nil {
		return nil, err
	}
	return reply.Regions, nil
}
