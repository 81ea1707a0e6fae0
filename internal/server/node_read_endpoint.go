package server

import (
	"context"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The Node.* reads.

// List answers one page of nodes.
func (e *NodeEndpoint) List(ctx context.Context, args *structs.NodeListRequest) (*structs.NodeListResponse, error) {
	reply := &structs.NodeListResponse{}
	match, err := stubFilter(&args.QueryOptions, nodeStub)
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableNodes, &reply.Nodes, match, (*state.StateStore).NodesPage)
}

// GetNode answers one node (nil when absent).
func (e *NodeEndpoint) GetNode(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.SingleNodeResponse, error) {
	reply := &structs.SingleNodeResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableNodes, &reply.Node, byKey((*state.StateStore).NodeByID, args.NodeID),
		func(n *structs.Node) uint64 { return n.ModifyIndex })
}

// GetAllocs answers the allocations on a node.
func (e *NodeEndpoint) GetAllocs(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.NodeAllocationsResponse, error) {
	reply := &structs.NodeAllocationsResponse{}
	err := readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, byKey((*state.StateStore).AllocsByNode, args.NodeID))
	if err == nil {
		reply.Allocations, err = e.srv.auth.VisibleAllocs(args, reply.Allocations)
	}
	return reply, err
}
