package server

import (
	"context"
	"errors"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// NodePoolEndpoint is the NodePool.* endpoint family.
type NodePoolEndpoint struct{ srv *Server }

// List answers every pool the caller may read (with Prefix, those
// starting with it), built-ins included.
func (e *NodePoolEndpoint) List(ctx context.Context, args *structs.NodePoolListRequest) (*structs.NodePoolListResponse, error) {
	reply := &structs.NodePoolListResponse{}
	if err := refuseListOptions(&args.QueryOptions); err != nil {
		return nil, err
	}
	a, err := e.srv.auth.ResolveToken(args.AuthToken)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		pools, err := st.NodePools(ws, args.Prefix)
		reply.NodePools = slices.DeleteFunc(pools, func(p *structs.NodePool) bool {
			return !a.AllowNodePoolOperation(p.Name, acl.NodePoolCapabilityRead)
		})
		return st.Index(state.TableNodePools), err
	})
	return reply, err
}

// Get answers one pool (nil when absent).
func (e *NodePoolEndpoint) Get(ctx context.Context, args *structs.NodePoolSpecificRequest) (*structs.SingleNodePoolResponse, error) {
	reply := &structs.SingleNodePoolResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.NodePool, err = st.NodePoolByName(ws, args.Name)
		return st.Index(state.TableNodePools), err
	})
	return reply, err
}

// Upsert creates or updates pools; the built-ins cannot be changed.
func (e *NodePoolEndpoint) Upsert(ctx context.Context, args *structs.NodePoolUpsertArgs) (*structs.NodePoolWriteResponse, error) {
	reply := &structs.NodePoolWriteResponse{}
	if len(args.NodePools) == 0 {
		return nil, BadRequest("NodePools: at least one node pool is required")
	}
	for i, p := range args.NodePools {
		if p == nil {
			return nil, BadRequest("NodePools[%d]: must not be null", i)
		}
		if err := p.Validate(); err != nil {
			return nil, BadRequest("NodePools[%d].%v", i, err)
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NodePoolUpsertRequestType, &structs.NodePoolUpsertRequest{NodePools: args.NodePools})
	reply.Index = index
	return reply, err
}

// Delete deletes pools: not a built-in, and not one nodes or jobs use.
func (e *NodePoolEndpoint) Delete(ctx context.Context, args *structs.NodePoolDeleteArgs) (*structs.NodePoolWriteResponse, error) {
	reply := &structs.NodePoolWriteResponse{}
	if len(args.Names) == 0 {
		return nil, BadRequest("Names: at least one node pool name is required")
	}
	for _, name := range args.Names {
		if err := e.srv.State().NodePoolDeletable(name); err != nil {
			return nil, nodePoolDeleteError(err)
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NodePoolDeleteRequestType, &structs.NodePoolDeleteRequest{Names: args.Names})
	if err != nil {
		return nil, nodePoolDeleteError(err) // a node or job arrived after the check
	}
	reply.Index = index
	return reply, nil
}

func nodePoolDeleteError(err error) error {
	if errors.Is(err, state.ErrNotFound) {
		return NotFound("%v", err)
	}
	return BadRequest("Name: %v", err)
}

// Jobs answers the jobs of a pool, with their summaries ("all" lists the
// jobs that run on every pool).
func (e *NodePoolEndpoint) Jobs(ctx context.Context, args *structs.NodePoolSpecificRequest) (*structs.NodePoolJobsResponse, error) {
	reply := &structs.NodePoolJobsResponse{}
	visible, err := e.srv.auth.NamespaceVisible(args, acl.NamespaceCapabilityListJobs)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		jobs, err := st.Jobs(ws, args.Namespace)
		if err != nil {
			return 0, err
		}
		reply.Jobs, reply.Summaries = nil, nil
		for _, j := range jobs {
			if j.NodePool != args.Name || !visible(j.Namespace) {
				continue
			}
			sum, err := SummarizeJob(ws, st, j)
			if err != nil {
				return 0, err
			}
			reply.Jobs, reply.Summaries = append(reply.Jobs, j), append(reply.Summaries, sum)
		}
		return max(st.Index(state.TableJobs), st.Index(state.TableAllocs)), nil
	})
	return reply, err
}

// Nodes answers the nodes of a pool ("all": every node).
func (e *NodePoolEndpoint) Nodes(ctx context.Context, args *structs.NodePoolSpecificRequest) (*structs.NodePoolNodesResponse, error) {
	reply := &structs.NodePoolNodesResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		nodes, err := st.Nodes(ws)
		if err != nil {
			return 0, err
		}
		reply.Nodes = nil
		for _, n := range nodes {
			if args.Name == structs.AllNodePools || n.NodePool == args.Name {
				reply.Nodes = append(reply.Nodes, n)
			}
		}
		return st.Index(state.TableNodes), nil
	})
	return reply, err
}
