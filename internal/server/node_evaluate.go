package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// Evaluate forces the schedulers to look at a node again (`node eval`):
// one node-update eval per job with live allocs on it and per system job
// that may run there, written in one raft entry. Unlike the evals of a
// node change these are not coalesced with pending ones: the operator
// asked for a new look.
func (e *NodeEndpoint) Evaluate(ctx context.Context, args *structs.NodeEvaluateArgs) (*structs.NodeWriteResponse, error) {
	reply := &structs.NodeWriteResponse{}
	node, err := e.srv.State().NodeByID(nil, args.NodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", args.NodeID, structs.ErrNodeNotFound)
	}
	evals, err := e.srv.nodeUpdateEvals(node, structs.EvalTriggerNodeUpdate)
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		reply.NodeModifyIndex = node.ModifyIndex
		reply.Index = e.srv.State().LatestIndex()
		return reply, nil
	}
	index, err := e.srv.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	if err != nil {
		return nil, err
	}
	reply = nodeReply(index, evals)
	reply.NodeModifyIndex = node.ModifyIndex
	return reply, nil
}
