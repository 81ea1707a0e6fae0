package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) allocList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, h.srv.Alloc.List, &structs.AllocListRequest{})
	if err != nil {
		return nil, err
	}
	return allocStubs(reply.Allocations), nil
}

func (h *HTTPServer) allocGet(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, h.srv.Alloc.GetAlloc, &structs.AllocSpecificRequest{AllocID: id})
	return oneOf(reply.Alloc, apiconv.AllocFromStructs, err, "allocation %q not found", id)
}
