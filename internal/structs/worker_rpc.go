package structs

import "time"

// The scheduling calls a worker on a follower makes to the leader: it
// dequeues from the leader's broker, submits plans to the leader's plan
// applier and writes eval updates there (see internal/server/remote_worker.go).

// EvalDequeueRequest waits up to Timeout for an eval of these schedulers.
type EvalDequeueRequest struct {
	Schedulers []string
	Timeout    time.Duration
	// ServerID is the dequeuing server's raft ID: if it fails, the leader
	// nacks its evals at once instead of after the nack timeout.
	ServerID string
	// BootID changes each time that server starts: evals held by an
	// earlier run (a restart faster than gossip notices) are nacked.
	BootID string
	WriteRequest
}

// EvalDequeueResponse is the dequeued eval (nil when none came in time),
// its broker token, and the raft index the worker's state must reach
// before it schedules the eval (the eval's own and every plan result the
// leader has applied for its job).
type EvalDequeueResponse struct {
	Eval      *Evaluation
	Token     string
	WaitIndex uint64
	WriteMeta
}

// EvalAckRequest acks, nacks, or pauses/resumes the nack timer of an eval
// held under Token.
type EvalAckRequest struct {
	EvalID string
	Token  string
	WriteRequest
}

// EvalUpdateArgs writes evals; EvalToken re-blocks the eval held under it.
// AckEvalID, when set, acks that eval under AckToken once the write has
// committed: a follower's worker finishes an eval (its final status, then
// the ack) in one call to the leader.
type EvalUpdateArgs struct {
	Evals     []*Evaluation
	EvalToken string
	AckEvalID string
	AckToken  string
	WriteRequest
}

// PlanSubmitRequest submits a plan to the leader's plan applier. With
// Next set, a plan that finishes its eval (PlanResult.EvalFinished) also
// dequeues the worker's next eval, if one is ready, so the worker's next
// round trip (Eval.Dequeue) rides on this one. Next.Timeout is ignored:
// the leader does not wait for an eval.
type PlanSubmitRequest struct {
	Plan *Plan
	Next *EvalDequeueRequest
	// ResultByReference: the sender can take a result that names the
	// parts of its plan the leader accepted instead of carrying them
	// (PlanSubmitResponse.Accepted). A sender that does not say so gets
	// them whole.
	ResultByReference bool
	WriteRequest
}

// PlanSubmitResponse is the applier's result, and the next eval when the
// request asked for one and one was ready (nil otherwise).
type PlanSubmitResponse struct {
	Result *PlanResult
	// Accepted, when set, names the parts of the submitted plan that
	// Result accepted; Result itself carries none (PlanResult.Resolve).
	Accepted *PlanAcceptance
	Next     *EvalDequeueResponse
	WriteMeta
}
