package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) allocRoutes() {
	h.handle("GET /v1/allocations", h.allocList)
	h.handle("GET /v1/allocation/{id}", h.allocGet)
}

func (h *HTTPServer) allocList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := h.srv.Alloc.List(r.Context(), &structs.AllocListRequest{QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	return allocStubs(reply.Allocations), nil
}

func (h *HTTPServer) allocGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	reply, err := h.srv.Alloc.GetAlloc(r.Context(), &structs.AllocSpecificRequest{AllocID: id, QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	if reply.Alloc == nil {
		return nil, server.NotFound("allocation %q not found", id)
	}
	return apiconv.AllocFromStructs(reply.Alloc), nil
}
