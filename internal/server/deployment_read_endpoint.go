package server

import (
	"context"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The Deployment.* reads.

// List answers one page of deployments in the request's namespace (or
// every namespace for "*").
func (e *DeploymentEndpoint) List(ctx context.Context, args *structs.DeploymentListRequest) (*structs.DeploymentListResponse, error) {
	reply := &structs.DeploymentListResponse{}
	match, err := pageFilter[structs.Deployment](&args.QueryOptions, nil)
	if err == nil {
		match, err = auth.VisibleOnly(e.srv.auth, args, acl.NamespaceCapabilityReadJob, auth.DeploymentNamespace, match)
	}
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployments, match, (*state.StateStore).DeploymentsPage)
}

// GetDeployment answers one deployment (nil when absent).
func (e *DeploymentEndpoint) GetDeployment(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.SingleDeploymentResponse, error) {
	reply := &structs.SingleDeploymentResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployment, byKey((*state.StateStore).DeploymentByID, args.DeploymentID),
		func(d *structs.Deployment) uint64 { return d.ModifyIndex })
}

// Allocations answers a deployment's allocations.
func (e *DeploymentEndpoint) Allocations(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.DeploymentAllocationsResponse, error) {
	reply := &structs.DeploymentAllocationsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, byKey((*state.StateStore).AllocsByDeployment, args.DeploymentID))
}
