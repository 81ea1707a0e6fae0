package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/server"
)

// regionList answers GET /v1/regions.
func (h *HTTPServer) regionList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := server.RegionList.Call(r.Context(), h.srv, &q)
	if err != nil {
		return nil, err
	}
	return reply.Regions, nil
}
