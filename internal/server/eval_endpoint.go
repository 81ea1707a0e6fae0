package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// EvalEndpoint is the Eval.* endpoint family.
type EvalEndpoint struct{ srv *Server }

// List answers one page of evaluations in the request's namespace (or
// every namespace for "*"), optionally of one job and status.
func (e *EvalEndpoint) List(ctx context.Context, args *structs.EvalListRequest) (*structs.EvalListResponse, error) {
	reply := &structs.EvalListResponse{}
	if args.Status != "" && !validEvalStatus(args.Status) {
		return nil, BadRequest("status: %q is not an evaluation status", args.Status)
	}
	match, err := pageFilter(&args.QueryOptions, func(ev *structs.Evaluation) bool {
		return (args.JobID == "" || ev.JobID == args.JobID) && (args.Status == "" || ev.Status == args.Status)
	})
	if err == nil {
		match, err = auth.VisibleOnly(e.srv.auth, args, acl.NamespaceCapabilityReadJob, auth.EvalNamespace, match)
	}
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableEvals, &reply.Evals, match, (*state.StateStore).EvalsPage)
}

func validEvalStatus(s string) bool {
	switch s {
	case structs.EvalStatusPending, structs.EvalStatusBlocked, structs.EvalStatusComplete,
		structs.EvalStatusFailed, structs.EvalStatusCanceled:
		return true
	}
	return false
}

// GetEval answers one evaluation (Eval nil when absent), its timeline, and
// with IncludeRelated the evals linked to it.
func (e *EvalEndpoint) GetEval(ctx context.Context, args *structs.EvalSpecificRequest) (*structs.SingleEvalResponse, error) {
	reply := &structs.SingleEvalResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		eval, err := st.EvalByID(ws, args.EvalID)
		reply.Eval, reply.Related = eval, nil
		if err != nil || eval == nil {
			return st.Index(state.TableEvals), err
		}
		if args.IncludeRelated {
			reply.Related, err = st.EvalsRelatedToID(ws, args.EvalID)
		}
		return eval.ModifyIndex, err
	})
	if reply.Eval != nil {
		reply.Timeline = e.srv.EvalTimeline(reply.Eval)
	}
	return reply, err
}

// Allocations answers the allocations an evaluation placed.
func (e *EvalEndpoint) Allocations(ctx context.Context, args *structs.EvalSpecificRequest) (*structs.EvalAllocationsResponse, error) {
	reply := &structs.EvalAllocationsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, byKey((*state.StateStore).AllocsByEval, args.EvalID))
}

// Delete deletes terminal evaluations (see Server.DeleteEvals).
func (e *EvalEndpoint) Delete(ctx context.Context, args *structs.EvalDeleteArgs) (*structs.EvalDeleteResponse, error) {
	reply := &structs.EvalDeleteResponse{}
	var n int
	var index uint64
	var err error
	if args.Filter != "" {
		var match func(*structs.Evaluation) (bool, error)
		if match, err = evalFilter(args); err == nil {
			n, index, err = e.srv.DeleteEvalsWhere(match)
		}
	} else {
		n, index, err = e.srv.DeleteEvals(args.EvalIDs)
	}
	if err != nil {
		return nil, err
	}
	reply.Count, reply.Index = n, index
	return reply, nil
}

// Count answers how many evaluations in the namespace (or "*") match the
// request's prefix and filter, without sending them.
func (e *EvalEndpoint) Count(ctx context.Context, args *structs.QueryOptions) (*structs.EvalCountResponse, error) {
	reply := &structs.EvalCountResponse{}
	match, err := filterFunc[*structs.Evaluation](args.Filter)
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, args, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		evals, err := st.EvalsByIDPrefix(ws, args.Namespace, args.Prefix)
		if err != nil {
			return 0, err
		}
		reply.Count = 0
		for _, ev := range evals {
			ok, err := match(ev)
			if err != nil {
				return 0, err
			}
			if ok {
				reply.Count++
			}
		}
		return st.Index(state.TableEvals), nil
	})
	return reply, err
}
