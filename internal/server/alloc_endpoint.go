package server

import (
	"context"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// AllocEndpoint is the Alloc.* endpoint family.
type AllocEndpoint struct{ srv *Server }

// Stop asks for an alloc to be stopped and replaced: it marks the alloc
// for migration and writes one alloc-stop eval of its job, in one entry;
// the scheduler then stops it and places a replacement.
func (e *AllocEndpoint) Stop(ctx context.Context, args *structs.AllocStopArgs) (*structs.AllocStopResponse, error) {
	reply := &structs.AllocStopResponse{}
	allocID := args.AllocID
	alloc, err := e.srv.State().AllocByID(nil, allocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, NotFound("allocation %q not found", allocID)
	}
	job := alloc.Job
	if current, err := e.srv.State().JobByID(nil, alloc.Namespace, alloc.JobID); err == nil && current != nil {
		job = current
	}
	if job == nil {
		return nil, NotFound("job %q of allocation %q not found", alloc.JobID, allocID)
	}
	eval := e.srv.newJobEval(job, structs.EvalTriggerAllocStop)
	yes := true
	transition := &structs.DesiredTransition{Migrate: &yes}
	if args.NoShutdownDelay {
		transition.NoShutdownDelay = &yes
	}
	index, err := e.srv.raftApply(ctx, structs.AllocUpdateDesiredTransitionType, &structs.AllocUpdateDesiredTransitionRequest{
		Allocs: map[string]*structs.DesiredTransition{allocID: transition},
		Evals:  []*structs.Evaluation{eval},
	})
	if err != nil {
		return nil, err
	}
	reply.EvalID, reply.Index = eval.ID, index
	return reply, nil
}

// List answers one page of allocations in the request's namespace (or
// every namespace for "*").
func (e *AllocEndpoint) List(ctx context.Context, args *structs.AllocListRequest) (*structs.AllocListResponse, error) {
	reply := &structs.AllocListResponse{}
	match, err := stubFilter(&args.QueryOptions, allocStub)
	if err == nil {
		match, err = auth.VisibleOnly(e.srv.auth, args, acl.NamespaceCapabilityReadJob, auth.AllocNamespace, match)
	}
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, match, (*state.StateStore).AllocsPage)
}

// GetAlloc answers one allocation (nil when absent).
func (e *AllocEndpoint) GetAlloc(ctx context.Context, args *structs.AllocSpecificRequest) (*structs.SingleAllocResponse, error) {
	reply := &structs.SingleAllocResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Alloc, byKey((*state.StateStore).AllocByID, args.AllocID),
		func(a *structs.Allocation) uint64 { return a.ModifyIndex })
}
