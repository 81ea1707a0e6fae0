package agent

import (
	"net/http"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) nodeRoutes() {
	h.handle("GET /v1/nodes", h.nodeList)
	h.handle("GET /v1/node/{id}", h.nodeGet)
	h.handle("GET /v1/node/{id}/allocations", h.nodeAllocations)
}

func (h *HTTPServer) nodeList(w http.ResponseWriter, r *http.Request) (any, error) {
	lo, err := parseList(r)
	if err != nil {
		return nil, err
	}
	var fields apiconv.NodeStubFields
	if fields.Resources, err = boolParam(r, "resources"); err != nil {
		return nil, err
	}
	if fields.OS, err = boolParam(r, "os"); err != nil {
		return nil, err
	}
	var nodes []*structs.Node
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		nodes, err = st.NodesByIDPrefix(ws, lo.Prefix)
		return st.Index("nodes"), err
	}); err != nil {
		return nil, err
	}
	stubs := make([]*api.NodeListStub, 0, len(nodes))
	for _, n := range nodes {
		stubs = append(stubs, apiconv.NodeStubFromStructs(n, fields))
	}
	return paginate(w, stubs, func(n *api.NodeListStub) string { return n.ID }, lo)
}

func (h *HTTPServer) nodeGet(w http.ResponseWriter, r *http.Request) (any, error) {
	node, err := readOne(h, w, r, "node", "nodes", func(_ server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (*structs.Node, error) {
		return st.NodeByID(ws, r.PathValue("id"))
	}, func(n *structs.Node) uint64 { return n.ModifyIndex })
	if err != nil {
		return nil, err
	}
	return apiconv.NodeFromStructs(node), nil
}

func (h *HTTPServer) nodeAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	var allocs []*structs.Allocation
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		allocs, err = st.AllocsByNode(ws, id)
		return st.Index("allocs"), err
	}); err != nil {
		return nil, err
	}
	out := make([]*api.Allocation, 0, len(allocs))
	for _, a := range allocs {
		out = append(out, apiconv.AllocFromStructs(a))
	}
	return out, nil
}

func (h *HTTPServer) nodeWriteRoutes() {
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/node/{id}/drain", h.nodeDrain)
		h.handle(m+" /v1/node/{id}/eligibility", h.nodeEligibility)
	}
}

// nodeDrain answers POST /v1/node/:id/drain: a DrainSpec starts (or
// changes) a drain, none cancels it.
func (h *HTTPServer) nodeDrain(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.NodeUpdateDrainRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.NodeID != "" && req.NodeID != r.PathValue("id") {
		return nil, server.BadRequest("NodeID: %q does not match the node %q in the URL", req.NodeID, r.PathValue("id"))
	}
	var deadline time.Duration
	var ignoreSystem bool
	if req.DrainSpec != nil {
		deadline, ignoreSystem = req.DrainSpec.Deadline, req.DrainSpec.IgnoreSystemJobs
	}
	reply, err := h.srv.Node.UpdateDrain(r.PathValue("id"), deadline, ignoreSystem, req.DrainSpec != nil, req.MarkEligible)
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.NodeDrainUpdateResponse{NodeModifyIndex: reply.NodeModifyIndex, EvalIDs: reply.EvalIDs,
		EvalCreateIndex: reply.EvalCreateIndex, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}

func (h *HTTPServer) nodeEligibility(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.NodeUpdateEligibilityRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	reply, err := h.srv.Node.UpdateEligibility(r.PathValue("id"), req.Eligibility)
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.NodeEligibilityUpdateResponse{NodeModifyIndex: reply.NodeModifyIndex,
		WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}
