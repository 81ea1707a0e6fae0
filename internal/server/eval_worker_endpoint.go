package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// The eval-worker endpoints: the leader's side of a follower's workers
// (remoteBackend in remote_worker.go). Each is routed to the leader
// (methods.go), so a call that reaches a follower still lands on the
// leader's broker; only servers may make them (the server credential).

// Dequeue waits (bounded) for an eval on the leader's broker.
func (e *EvalEndpoint) Dequeue(ctx context.Context, args *structs.EvalDequeueRequest) (*structs.EvalDequeueResponse, error) {
	if args.ServerID != "" {
		e.srv.nackHeld(args.ServerID, args.BootID) // earlier runs of that server
	}
	wait := min(max(args.Timeout, time.Millisecond), remoteDequeueWait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return e.srv.dequeueForRemote(ctx, args)
}

// dequeueForRemote dequeues an eval for another server's worker, waiting
// until ctx ends (an ended ctx takes only an eval ready now), and records
// that server as its holder.
func (s *Server) dequeueForRemote(ctx context.Context, args *structs.EvalDequeueRequest) (*structs.EvalDequeueResponse, error) {
	reply := &structs.EvalDequeueResponse{}
	eval, token, err := s.broker.Dequeue(ctx, args.Schedulers)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	if eval == nil {
		return reply, nil
	}
	reply.Eval, reply.Token = eval, token
	reply.WaitIndex = s.evalWaitIndex(eval)
	if args.ServerID != "" {
		s.remoteHeld.add(args.ServerID, args.BootID, eval.ID, token)
	}
	return reply, nil
}

// evalWaitIndex is the index a follower's state must reach before it
// schedules eval: the eval's own, and every plan result the leader has
// applied for its job (Nomad's wait index). The previous eval of the job
// may have been acked a moment ago: a follower that has not yet applied
// its plan would schedule on a snapshot without those placements and make
// them again.
func (s *Server) evalWaitIndex(eval *structs.Evaluation) uint64 {
	wait := eval.ModifyIndex
	allocs, err := s.State().AllocsByJob(nil, eval.Namespace, eval.JobID, true)
	if err != nil {
		return max(wait, s.State().LatestIndex())
	}
	for _, a := range allocs {
		wait = max(wait, a.ModifyIndex)
	}
	return wait
}

// releaseHeld acks (ack set) or nacks, on the leader's broker, an eval
// held by a worker of any server (local or remote), and forgets its
// remote holder. It carries out the decisions Worker.release makes (which
// says who acks an eval, and when) that fall to the leader: a plan's
// entry that wrote its eval's final status committed (ack) or failed
// (nack), and a remote worker's final status committed (Eval.Update).
func (s *Server) releaseHeld(evalID, token string, ack bool) error {
	s.remoteHeld.remove(evalID, token)
	if ack {
		return localBackend{s}.Ack(evalID, token)
	}
	return s.broker.Nack(evalID, token)
}

// Ack acks an eval held under its token.
func (e *EvalEndpoint) Ack(ctx context.Context, args *structs.EvalAckRequest) (*structs.GenericResponse, error) {
	return &structs.GenericResponse{}, e.srv.releaseHeld(args.EvalID, args.Token, true)
}

// Nack returns an eval to the broker for redelivery.
func (e *EvalEndpoint) Nack(ctx context.Context, args *structs.EvalAckRequest) (*structs.GenericResponse, error) {
	return &structs.GenericResponse{}, e.srv.releaseHeld(args.EvalID, args.Token, false)
}

// Update writes a worker's eval updates (and re-blocks under EvalToken),
// then acks AckEvalID if set. A write that fails acks nothing.
func (e *EvalEndpoint) Update(ctx context.Context, args *structs.EvalUpdateArgs) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	index, err := e.srv.raftApply(ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: args.Evals, EvalToken: args.EvalToken})
	reply.Index = index
	if err != nil || args.AckEvalID == "" {
		return reply, err
	}
	if err := e.srv.releaseHeld(args.AckEvalID, args.AckToken, true); err != nil {
		return reply, fmt.Errorf("eval %s: status written at index %d but not acked: %w", args.AckEvalID, index, err)
	}
	return reply, nil
}
