package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// nodeSubresource answers GET /v1/node/:id/allocations and, as the same
// pattern, GET /v1/node/pool/:name.
func (h *HTTPServer) nodeSubresource(w http.ResponseWriter, r *http.Request) (any, error) {
	switch {
	case r.PathValue("id") == "pool":
		return h.nodePoolGet(w, r, r.PathValue("sub"))
	case r.PathValue("sub") == "allocations":
		return h.nodeAllocations(w, r)
	}
	return nil, server.NotFound("no such endpoint: %s %s", r.Method, r.URL.Path)
}

func (h *HTTPServer) nodePoolList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.NodePoolList.On(h.srv), &structs.NodePoolListRequest{})
	return listOf(reply.NodePools, nodePoolToAPI, err)
}

func (h *HTTPServer) nodePoolGet(w http.ResponseWriter, r *http.Request, name string) (any, error) {
	reply, err := readEndpoint(w, r, server.NodePoolGet.On(h.srv), &structs.NodePoolSpecificRequest{Name: name})
	return oneOf(reply.NodePool, nodePoolToAPI, err, "node pool %q not found", name)
}

func (h *HTTPServer) nodePoolUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var pool api.NodePool
	if err := decodeBody(w, r, &pool); err != nil {
		return nil, err
	}
	reply, err := server.NodePoolUpsert.Call(r.Context(), h.srv, &structs.NodePoolUpsertArgs{
		NodePools:    []*structs.NodePool{{Name: pool.Name, Description: pool.Description, Meta: pool.Meta}},
		WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) nodePoolDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.NodePoolDelete.Call(r.Context(), h.srv, &structs.NodePoolDeleteArgs{Names: []string{r.PathValue("name")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) nodePoolJobs(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.NodePoolJobs.On(h.srv), &structs.NodePoolSpecificRequest{Name: r.PathValue("name")})
	if err != nil {
		return nil, err
	}
	out := make([]*api.JobListStub, 0, len(reply.Jobs))
	for i, j := range reply.Jobs {
		out = append(out, apiconv.JobListStub(j, summaryToAPI(reply.Summaries[i])))
	}
	return out, nil
}

func (h *HTTPServer) nodePoolNodes(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.NodePoolNodes.On(h.srv), &structs.NodePoolSpecificRequest{Name: r.PathValue("name")})
	if err != nil {
		return nil, err
	}
	out := make([]*api.NodeListStub, 0, len(reply.Nodes))
	for _, n := range reply.Nodes {
		out = append(out, apiconv.NodeStubFromStructs(n, apiconv.NodeStubFields{}))
	}
	return out, nil
}

func nodePoolToAPI(p *structs.NodePool) *api.NodePool {
	return &api.NodePool{Name: p.Name, Description: p.Description, Meta: p.Meta, CreateIndex: p.CreateIndex, ModifyIndex: p.ModifyIndex}
}
