package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The Node.* reads.

// List answers one page of nodes.
func (e *NodeEndpoint) List(ctx context.Context, args *structs.NodeListRequest) (*structs.NodeListResponse, error) {
	reply := &structs.NodeListResponse{}
	if done, err := e.srv.forward(ctx, "Node.List", args, reply); done {
		return reply, err
	}
	match, err := stubFilter(&args.QueryOptions, nodeStub)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		page, err := st.NodesPage(ws, pageOptions(&args.QueryOptions), match)
		reply.Nodes, reply.NextToken = page.Items, page.NextToken
		return st.Index(state.TableNodes), err
	})
	return reply, err
}

// GetNode answers one node (nil when absent).
func (e *NodeEndpoint) GetNode(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.SingleNodeResponse, error) {
	reply := &structs.SingleNodeResponse{}
	if done, err := e.srv.forward(ctx, "Node.GetNode", args, reply); done {
		return reply, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		node, err := st.NodeByID(ws, args.NodeID)
		reply.Node = node
		if err != nil || node == nil {
			return st.Index(state.TableNodes), err
		}
		return node.ModifyIndex, nil
	})
	return reply, err
}

// GetAllocs answers the allocations on a node.
func (e *NodeEndpoint) GetAllocs(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.NodeAllocationsResponse, error) {
	reply := &structs.NodeAllocationsResponse{}
	if done, err := e.srv.forward(ctx, "Node.GetAllocs", args, reply); done {
		return reply, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.Allocations, err = st.AllocsByNode(ws, args.NodeID)
		return st.Index(state.TableAllocs), err
	})
	return reply, err
}
