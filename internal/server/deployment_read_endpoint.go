package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The Deployment.* reads.

// List answers one page of deployments in the request's namespace (or
// every namespace for "*").
func (e *DeploymentEndpoint) List(ctx context.Context, args *structs.DeploymentListRequest) (*structs.DeploymentListResponse, error) {
	reply := &structs.DeploymentListResponse{}
	if done, err := e.srv.forward(ctx, "Deployment.List", args, reply); done {
		return reply, err
	}
	match, err := pageFilter[structs.Deployment](&args.QueryOptions, nil)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		page, err := st.DeploymentsPage(ws, pageOptions(&args.QueryOptions), match)
		reply.Deployments, reply.NextToken = page.Items, page.NextToken
		return st.Index(state.TableDeployment), err
	})
	return reply, err
}

// GetDeployment answers one deployment (nil when absent).
func (e *DeploymentEndpoint) GetDeployment(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.SingleDeploymentResponse, error) {
	reply := &structs.SingleDeploymentResponse{}
	if done, err := e.srv.forward(ctx, "Deployment.GetDeployment", args, reply); done {
		return reply, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		d, err := st.DeploymentByID(ws, args.DeploymentID)
		reply.Deployment = d
		if err != nil || d == nil {
			return st.Index(state.TableDeployment), err
		}
		return d.ModifyIndex, nil
	})
	return reply, err
}

// Allocations answers a deployment's allocations.
func (e *DeploymentEndpoint) Allocations(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.DeploymentAllocationsResponse, error) {
	reply := &structs.DeploymentAllocationsResponse{}
	if done, err := e.srv.forward(ctx, "Deployment.Allocations", args, reply); done {
		return reply, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.Allocations, err = st.AllocsByDeployment(ws, args.DeploymentID)
		return st.Index(state.TableAllocs), err
	})
	return reply, err
}
