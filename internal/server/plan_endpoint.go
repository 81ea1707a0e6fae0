package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// PlanEndpoint is the Plan.* family: the leader's plan applier.
type PlanEndpoint struct{ srv *Server }

// Submit queues a plan with the leader's applier and waits for its result.
func (p *PlanEndpoint) Submit(ctx context.Context, args *structs.PlanSubmitRequest) (*structs.PlanSubmitResponse, error) {
	reply := &structs.PlanSubmitResponse{}
	if args.Plan == nil {
		return nil, BadRequest("Plan: missing plan")
	}
	// A follower's plan arrives compact (Plan.Compact) and stays so: the
	// applier never reads a placement's job.
	result, err := p.srv.submitHeldPlan(args.Plan)
	reply.Result = result
	if result != nil && args.ResultByReference {
		if rest, accepted, ok := result.ByReference(args.Plan); ok {
			reply.Result, reply.Accepted = rest, accepted
		}
	}
	if err != nil || !result.EvalFinished || args.Next == nil || len(args.Next.Schedulers) == 0 {
		return reply, err
	}
	// The worker is done with its eval: hand it the next one now rather
	// than on its next call. Only an eval ready now (doneCtx).
	reply.Next, err = p.srv.dequeueForRemote(doneCtx, args.Next)
	if err != nil {
		p.srv.log.Warn("plan finished its eval but the next dequeue failed", "eval", args.Plan.EvalID, "error", err)
		reply.Next = nil
	}
	return reply, nil
}
