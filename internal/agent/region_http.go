package agent

import "net/http"

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
