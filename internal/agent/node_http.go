package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// nodeListTables are the state tables a node listing reads: its index.
var nodeListTables = []string{"nodes"}

func (h *HTTPServer) nodeList(w http.ResponseWriter, r *http.Request) (any, error) {
	var fields apiconv.NodeStubFields
	var err error
	if fields.Resources, err = boolParam(r, "resources"); err != nil {
		return nil, err
	}
	if fields.OS, err = boolParam(r, "os"); err != nil {
		return nil, err
	}
	return h.cachedList(w, r, nodeListTables, func() (any, error) {
		reply, err := readEndpoint(w, r, server.NodeList.On(h.srv), &structs.NodeListRequest{})
		if err != nil {
			return nil, err
		}
		var variant uint8
		if fields.Resources {
			variant |= 1
		}
		if fields.OS {
			variant |= 2
		}
		return encodedList(h.stubs.nodes, reply.Nodes, variant, nodeVersion, func(n *structs.Node) any {
			return apiconv.NodeStubFromStructs(n, fields)
		})
	})
}

func (h *HTTPServer) nodeGet(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.NodeGetNode.On(h.srv), &structs.NodeSpecificRequest{NodeID: id})
	return oneOf(reply.Node, apiconv.NodeFromStructs, err, "node %q not found", id)
}

func (h *HTTPServer) nodeAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.NodeGetAllocs.On(h.srv), &structs.NodeSpecificRequest{NodeID: r.PathValue("id")})
	return listOf(reply.Allocations, apiconv.AllocFromStructs, err)
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
	args := &structs.NodeUpdateDrainArgs{NodeID: r.PathValue("id"), MarkEligible: req.MarkEligible, WriteRequest: writeRequest(r)}
	if req.DrainSpec != nil {
		args.DrainStrategy = &structs.DrainSpec{Deadline: req.DrainSpec.Deadline, IgnoreSystemJobs: req.DrainSpec.IgnoreSystemJobs}
	}
	reply, err := server.NodeUpdateDrain.Call(r.Context(), h.srv, args)
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
	if err := pathIDMatches("NodeID", req.NodeID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.NodeUpdateEligibility.Call(r.Context(), h.srv, &structs.NodeUpdateEligibilityArgs{
		NodeID: r.PathValue("id"), Eligibility: req.Eligibility, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.NodeEligibilityUpdateResponse{NodeModifyIndex: reply.NodeModifyIndex, EvalIDs: reply.EvalIDs,
		EvalCreateIndex: reply.EvalCreateIndex, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}

// nodeEvaluateResponse is Nomad's node-update response. EvalID (the first
// eval) is what the official client's Nodes().ForceEvaluate reads.
type nodeEvaluateResponse struct {
	EvalID          string
	EvalIDs         []string
	EvalCreateIndex uint64
	NodeModifyIndex uint64
}

// nodeEvaluate answers PUT /v1/node/:id/evaluate (`node eval`).
func (h *HTTPServer) nodeEvaluate(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.NodeEvaluate.Call(r.Context(), h.srv, &structs.NodeEvaluateArgs{NodeID: r.PathValue("id"), WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	out := &nodeEvaluateResponse{EvalIDs: reply.EvalIDs, EvalCreateIndex: reply.EvalCreateIndex, NodeModifyIndex: reply.NodeModifyIndex}
	if len(reply.EvalIDs) > 0 {
		out.EvalID = reply.EvalIDs[0]
	}
	return out, nil
}
