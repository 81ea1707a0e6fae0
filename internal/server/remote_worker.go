package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// schedulingBackend is what a worker talks to: the local broker and plan
// queue on the leader, or the leader's over RPC on a follower. Workers run
// on every server; a follower's workers schedule against their own
// replicated state and send only plans and eval updates to the leader.
type schedulingBackend interface {
	// Dequeue returns an eval, its token, and the index this server's
	// state must reach before scheduling it.
	Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, uint64, error)
	Ack(evalID, token string) error
	Nack(evalID, token string) error
	// SubmitPlan waits for the plan's result with its eval's nack timer
	// paused (submitHeldPlan). With next set (the worker's schedulers), a
	// backend whose dequeue is a round trip may return the worker's next
	// eval with a plan that finished its eval; nil when it has none.
	SubmitPlan(plan *structs.Plan, next []string) (*structs.PlanResult, *dequeued, error)
	UpsertEvals(evals []*structs.Evaluation, reblockToken string) error
	// FinishEval writes the eval's final status (none if final is nil)
	// and then acks it: the ack only once the write has committed (an
	// acked eval whose status was lost would stay pending forever). An
	// error means the eval was not acked.
	FinishEval(final *structs.Evaluation, evalID, token string) error
}

var (
	_ schedulingBackend = localBackend{}
	_ schedulingBackend = remoteBackend{}
)

// dequeued is an eval a worker holds from its backend's broker.
type dequeued struct {
	eval      *structs.Evaluation
	token     string
	waitIndex uint64
}

// writeThenAck is FinishEval over a backend's separate write and ack.
func writeThenAck(b interface {
	UpsertEvals([]*structs.Evaluation, string) error
	Ack(evalID, token string) error
}, final *structs.Evaluation, evalID, token string) error {
	if final != nil {
		if err := b.UpsertEvals([]*structs.Evaluation{final}, ""); err != nil {
			return fmt.Errorf("final status write: %w", err)
		}
	}
	return b.Ack(evalID, token)
}

// remoteDequeueWait bounds one dequeue call to the leader, so a worker
// notices a leader change.
const remoteDequeueWait = 5 * time.Second

// errNoBackend means neither this server nor a known leader can schedule.
var errNoBackend = errors.New("no leader to dequeue from")

// schedulingBackend picks the leader's components when this server leads,
// else the leader over RPC (only in a cluster).
func (s *Server) schedulingBackend() (schedulingBackend, error) {
	if s.IsLeader() || !s.cluster.HasGossip() {
		return localBackend{s}, nil
	}
	if addr, id := s.raft.LeaderWithID(); addr != "" && string(id) != s.nodeID {
		return remoteBackend{s: s, leader: s.rpcAddrOf(string(id), string(addr))}, nil
	}
	return nil, errNoBackend
}

// localBackend is this (leading) server's own broker and plan queue.
type localBackend struct{ s *Server }

func (l localBackend) Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, uint64, error) {
	eval, token, err := l.s.broker.Dequeue(ctx, schedulers)
	if eval == nil {
		return eval, token, 0, err
	}
	// The leader's state already holds every plan result it applied.
	return eval, token, eval.ModifyIndex, err
}
func (l localBackend) Ack(evalID, token string) error {
	if err := l.s.broker.Ack(evalID, token); err != nil {
		return err
	}
	l.s.leader.NotifyAcked()
	return nil
}
func (l localBackend) Nack(evalID, token string) error { return l.s.broker.Nack(evalID, token) }

// SubmitPlan never hands out the next eval: a local dequeue costs no round
// trip.
func (l localBackend) SubmitPlan(plan *structs.Plan, _ []string) (*structs.PlanResult, *dequeued, error) {
	result, err := l.s.submitHeldPlan(plan)
	return result, nil, err
}
func (l localBackend) FinishEval(final *structs.Evaluation, evalID, token string) error {
	return writeThenAck(l, final, evalID, token)
}
func (l localBackend) UpsertEvals(evals []*structs.Evaluation, reblockToken string) error {
	_, err := l.s.raftApply(l.s.ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals, EvalToken: reblockToken})
	return err
}

// remoteBackend is the leader's broker and plan queue over RPC.
type remoteBackend struct {
	s      *Server
	leader string
}

// credential is the write options of a server-only call.
func (r remoteBackend) credential() structs.WriteRequest {
	token, _ := r.s.auth.ServerCredential()
	return structs.WriteRequest{AuthToken: token}
}

func (r remoteBackend) call(ctx context.Context, method string, args, reply any) error {
	return r.s.cluster.PeerRPC(ctx, r.leader, method, args, reply)
}

func (r remoteBackend) Dequeue(ctx context.Context, schedulers []string) (*structs.Evaluation, string, uint64, error) {
	if len(remoteSchedulers(schedulers)) == 0 {
		// Nothing this worker may take from the leader: wait as a dequeue
		// that finds nothing would, so the worker does not spin.
		wait, cancel := context.WithTimeout(ctx, remoteDequeueWait)
		defer cancel()
		<-wait.Done()
		return nil, "", 0, nil
	}
	var out structs.EvalDequeueResponse
	err := r.call(ctx, "Eval.Dequeue", r.dequeueRequest(schedulers), &out)
	d := fromDequeueResponse(&out)
	if d == nil {
		return nil, "", 0, err
	}
	return d.eval, d.token, d.waitIndex, err
}

func (r remoteBackend) dequeueRequest(schedulers []string) *structs.EvalDequeueRequest {
	return &structs.EvalDequeueRequest{Schedulers: remoteSchedulers(schedulers), Timeout: remoteDequeueWait,
		ServerID: r.s.nodeID, BootID: r.s.bootID, WriteRequest: r.credential()}
}

// remoteSchedulers are the eval types a follower's worker asks the leader
// for: all it runs but `_core`. The core scheduler (leader.CoreScheduler:
// GC) writes through the local raft, which only the leader can do, so
// `_core` evals are left to the leader's own workers, at least one of
// which always runs (Server.pauseWorkersForLeader). Nomad runs its core
// scheduler on followers too and forwards each of its writes to the
// leader; Drover differs on purpose: one rule in one place instead of a
// forwarded write per GC kind, for housekeeping that costs the leader
// little.
func remoteSchedulers(schedulers []string) []string {
	return slices.DeleteFunc(slices.Clone(schedulers), func(s string) bool { return s == structs.JobTypeCore })
}

// fromDequeueResponse is the eval a dequeue answered with, or nil.
func fromDequeueResponse(out *structs.EvalDequeueResponse) *dequeued {
	if out == nil || out.Eval == nil {
		return nil
	}
	return &dequeued{eval: out.Eval, token: out.Token, waitIndex: max(out.WaitIndex, out.Eval.ModifyIndex)}
}

func (r remoteBackend) ack(method, evalID, token string) error {
	ctx, cancel := context.WithTimeout(r.s.ctx, raftApplyTimeout)
	defer cancel()
	return r.call(ctx, method, &structs.EvalAckRequest{EvalID: evalID, Token: token, WriteRequest: r.credential()}, &structs.GenericResponse{})
}

func (r remoteBackend) Ack(evalID, token string) error  { return r.ack("Eval.Ack", evalID, token) }
func (r remoteBackend) Nack(evalID, token string) error { return r.ack("Eval.Nack", evalID, token) }

func (r remoteBackend) SubmitPlan(plan *structs.Plan, next []string) (*structs.PlanResult, *dequeued, error) {
	ctx, cancel := context.WithTimeout(r.s.ctx, raftApplyTimeout)
	defer cancel()
	req := &structs.PlanSubmitRequest{Plan: plan.Compact(), ResultByReference: true, WriteRequest: r.credential()}
	if len(next) > 0 {
		req.Next = r.dequeueRequest(next)
	}
	var out structs.PlanSubmitResponse
	if err := r.call(ctx, "Plan.Submit", req, &out); err != nil {
		return nil, nil, err
	}
	if out.Result == nil {
		return nil, nil, errors.New("leader returned no plan result")
	}
	if out.Accepted == nil {
		out.Result.Expand(plan.Job)
	} else if err := out.Result.Resolve(plan, out.Accepted); err != nil {
		// The plan may have committed: the eval's retry will see it.
		return nil, nil, fmt.Errorf("leader's result for plan %s: %w", plan.ID, err)
	}
	return out.Result, fromDequeueResponse(out.Next), nil
}

func (r remoteBackend) UpsertEvals(evals []*structs.Evaluation, reblockToken string) error {
	return r.update(&structs.EvalUpdateArgs{Evals: evals, EvalToken: reblockToken})
}

// FinishEval saves a round trip per eval: the leader acks the eval as soon
// as its final status commits, instead of waiting for a second call.
func (r remoteBackend) FinishEval(final *structs.Evaluation, evalID, token string) error {
	if final == nil {
		return r.Ack(evalID, token)
	}
	return r.update(&structs.EvalUpdateArgs{Evals: []*structs.Evaluation{final}, AckEvalID: evalID, AckToken: token})
}

func (r remoteBackend) update(args *structs.EvalUpdateArgs) error {
	ctx, cancel := context.WithTimeout(r.s.ctx, raftApplyTimeout)
	defer cancel()
	args.WriteRequest = r.credential()
	return r.call(ctx, "Eval.Update", args, &structs.GenericResponse{})
}

// RemoteEvalsProcessed counts the evals this server's workers took from
// the leader's broker over RPC (zero on a server that always led).
func (s *Server) RemoteEvalsProcessed() uint64 {
	var n uint64
	for _, w := range s.workers {
		n += w.remoteProcessed.Load()
	}
	return n
}

// remoteHeld tracks, on the leader, which server's workers hold which
// evals, so a server that fails gives its evals back at once.
type remoteHeld struct {
	mu    sync.Mutex
	evals map[string]heldEval // by eval ID
}

type heldEval struct{ serverID, bootID, token string }

func (r *remoteHeld) add(serverID, bootID, evalID, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.evals == nil {
		r.evals = map[string]heldEval{}
	}
	r.evals[evalID] = heldEval{serverID, bootID, token}
}

// remove forgets the eval if it is held under token. An ack or nack under
// a stale token (the eval was redelivered) must not forget its new holder,
// whose failure would otherwise leave the eval to the nack timeout.
func (r *remoteHeld) remove(evalID, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.evals[evalID]; ok && h.token == token {
		delete(r.evals, evalID)
	}
}

// holder returns the server and token the eval is held by.
func (r *remoteHeld) holder(evalID string) (serverID, token string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.evals[evalID]
	return h.serverID, h.token, ok
}

// takeServer removes and returns the evals held by serverID's workers
// (only those of runs other than keepBoot, when set).
func (r *remoteHeld) takeServer(serverID, keepBoot string) map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for evalID, h := range r.evals {
		if h.serverID == serverID && (keepBoot == "" || h.bootID != keepBoot) {
			out[evalID] = h.token
			delete(r.evals, evalID)
		}
	}
	return out
}

func (r *remoteHeld) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evals = nil
}

// nackHeld returns to the broker the evals a server's workers held: all
// of them when that server failed (keepBoot ""), or those of its earlier
// runs when it restarted under a new boot ID (its workers are gone with
// the old process). A token that is no longer outstanding is ignored.
func (s *Server) nackHeld(serverID, keepBoot string) {
	if !s.LeaderActive() {
		return
	}
	for evalID, token := range s.remoteHeld.takeServer(serverID, keepBoot) {
		if err := s.broker.Nack(evalID, token); err == nil {
			s.log.Info("nacked an eval held by a failed server", "eval", evalID, "server", serverID)
		}
	}
}
