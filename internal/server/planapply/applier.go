package planapply

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Raft commits a plan's accepted part as one raft entry.
type Raft interface {
	// ApplyPlanResults returns the entry's index once the entry is
	// committed; an error means it may or may not have been.
	ApplyPlanResults(req *structs.ApplyPlanResultsRequest) (index uint64, err error)
}

// StateSource gives the applier snapshots of the leader's state.
type StateSource interface {
	// SnapshotMinIndex returns a snapshot that includes at least raft
	// index index, waiting for the local FSM to apply it if needed.
	SnapshotMinIndex(ctx context.Context, index uint64) (*state.StateSnapshot, error)
}

// Applier takes plans off the queue one at a time and commits what fits.
//
// Plans are strictly serialised: the next plan is evaluated on a snapshot
// that includes the previous plan's raft entry (SnapshotMinIndex with the
// last committed index). The overlapped design (evaluate the next plan
// while the previous one is still in raft, on a snapshot overlaid with its
// result) is not implemented: it is only correct if the overlay is exact,
// and BenchmarkPlanApply shows evaluation is about 5% of a step even with
// an in-memory raft; with a real log the step is dominated by the commit,
// which overlap would hide but not shorten.
type Applier struct {
	queue  *PlanQueue
	tokens TokenChecker
	state  StateSource
	raft   Raft
	clock  clock.Clock
	log    *slog.Logger
	newID  func() string

	// mu makes steps exclusive, so Run and ApplyOne never interleave and
	// lastIndex is the index of the latest commit when a step starts.
	mu         sync.Mutex
	lastIndex  uint64
	rejectHook RejectHook
	// onEvaluate, when set, is told how long each plan's evaluation took.
	onEvaluate func(time.Duration)
}

// SetEvaluateObserver installs a function told each evaluation's duration
// (the nomad.nomad.plan.evaluate metric).
func (a *Applier) SetEvaluateObserver(fn func(time.Duration)) {
	a.mu.Lock()
	a.onEvaluate = fn
	a.mu.Unlock()
}

// NewApplier returns an applier; newID makes preemption eval IDs.
func NewApplier(q *PlanQueue, tokens TokenChecker, st StateSource, raft Raft, clk clock.Clock, log *slog.Logger, newID func() string) *Applier {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Applier{queue: q, tokens: tokens, state: st, raft: raft, clock: clk, log: log, newID: newID}
}

// Run applies queued plans until ctx ends. A plan being applied when ctx
// ends is still answered.
func (a *Applier) Run(ctx context.Context) {
	for {
		p, err := a.queue.Dequeue(ctx)
		if err != nil {
			return
		}
		_ = a.apply(ctx, p) // the error went to the plan's submitter
	}
}

// Step applies the next queued plan, without waiting for one; it reports
// whether there was one. It is Run's loop body, for a caller that drives
// the leader step by step (the simulator).
func (a *Applier) Step() bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := a.queue.Dequeue(ctx)
	if err != nil {
		return false
	}
	_ = a.apply(context.Background(), p)
	return true
}

// ApplyOne checks, evaluates and commits one plan and answers its
// submitter; the returned error is the one the submitter got.
func (a *Applier) ApplyOne(p *PendingPlan) error {
	return a.apply(context.Background(), p)
}

func (a *Applier) apply(ctx context.Context, p *PendingPlan) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	res, err := a.process(ctx, p.Plan)
	p.respond(res, err)
	return err
}

// process is one step: token, snapshot, evaluate, commit.
func (a *Applier) process(ctx context.Context, plan *structs.Plan) (*structs.PlanResult, error) {
	if err := ValidatePlanToken(a.tokens, plan); err != nil {
		return nil, err
	}
	snap, err := a.state.SnapshotMinIndex(ctx, a.lastIndex)
	if err != nil {
		return nil, fmt.Errorf("plan apply: snapshot at index %d: %w", a.lastIndex, err)
	}
	started := time.Now()
	out, err := Evaluate(snap, plan)
	if a.onEvaluate != nil {
		a.onEvaluate(time.Since(started))
	}
	if err != nil {
		return nil, fmt.Errorf("plan apply: evaluate: %w", err)
	}
	a.injectRejections(plan, out.Result, snap.LatestIndex())
	a.logRejections(plan, out.Rejections)
	if !hasChanges(out.Result) {
		return out.Result, nil
	}
	return a.commit(snap, plan, out.Result)
}

// commit writes the accepted part in one raft entry.
func (a *Applier) commit(snap *state.StateSnapshot, plan *structs.Plan, res *structs.PlanResult) (*structs.PlanResult, error) {
	req, err := buildRequest(snap, plan, res, a.clock.Now().UnixNano(), a.newID)
	if err != nil {
		return nil, fmt.Errorf("plan apply: build request: %w", err)
	}
	index, err := a.raft.ApplyPlanResults(req)
	if err != nil {
		return nil, fmt.Errorf("plan apply: commit: %w", err)
	}
	a.lastIndex = index
	res.AllocIndex = index
	return res, nil
}

func (a *Applier) logRejections(plan *structs.Plan, rejections []Rejection) {
	for _, r := range rejections {
		a.log.Debug("plan rejected on node", "eval_id", plan.EvalID, "node_id", r.NodeID,
			"reason", r.Reason, "dimension", r.Dimension, "detail", r.Detail, "all_at_once", plan.AllAtOnce)
	}
}
