package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) serviceList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ServiceRegistrationList.On(h.srv), &structs.ServiceRegistrationListRequest{})
	if err != nil {
		return nil, err
	}
	return apiconv.ServiceListFromStructs(reply.Services), nil
}

// serviceGet answers GET /v1/service/:name; `choose=N|key` keeps N
// instances picked by rendezvous hashing on key.
func (h *HTTPServer) serviceGet(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ServiceRegistrationGetService.On(h.srv), &structs.ServiceRegistrationByNameRequest{
		ServiceName: r.PathValue("name"), Choose: r.URL.Query().Get("choose"),
	})
	if err != nil {
		return nil, err
	}
	return apiconv.ServiceRegistrationsFromStructs(reply.Services), nil
}

func (h *HTTPServer) serviceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ServiceRegistrationDeleteByID.Call(r.Context(), h.srv, &structs.ServiceRegistrationDeleteByIDRequest{
		IDs: []string{r.PathValue("id")}, ServiceName: r.PathValue("name"), WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) jobServices(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ServiceRegistrationByJob.On(h.srv), &structs.ServiceRegistrationByJobRequest{JobID: r.PathValue("id")})
	if err != nil {
		return nil, err
	}
	return apiconv.ServiceRegistrationsFromStructs(reply.Services), nil
}

func (h *HTTPServer) allocServices(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.ServiceRegistrationByAlloc.On(h.srv), &structs.ServiceRegistrationByAllocRequest{AllocID: id})
	if err != nil {
		return nil, err
	}
	if reply.Services == nil {
		return nil, server.NotFound("allocation %q not found", id)
	}
	return apiconv.ServiceRegistrationsFromStructs(reply.Services), nil
}
