package planapply

import (
	"context"
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

// Config is an applier's collaborators and modes. NewApplier decides every
// mode from it once; none changes while the applier runs.
type Config struct {
	Queue  *PlanQueue
	Tokens TokenChecker
	State  StateSource
	// Raft commits entries. An AsyncRaft makes the pipeline propose each
	// plan's entry without waiting for the ones before it; any other Raft
	// commits each entry before the applier goes on (what the simulator's
	// synchronous raft wants).
	Raft  Raft
	Clock clock.Clock
	Log   *slog.Logger // nil: discard
	// NewID makes preemption eval IDs.
	NewID func() string

	// Serial makes Run the strictly serial applier instead of the
	// pipeline: each plan is evaluated on a snapshot that includes the
	// previous plan's entry, committed, and answered before the next one
	// is looked at.
	Serial bool
	// RejectHook, when set, injects rejections (tests, the simulator).
	RejectHook RejectHook
	// OnEvaluate, when set, is told each evaluation's duration (the
	// nomad.nomad.plan.evaluate metric).
	OnEvaluate func(time.Duration)
	// AckEval, when set, lets plans carry their eval's final status
	// (structs.Plan.FinalEval): once such an entry commits the applier
	// acks the eval with it (final.go); without it plans never carry final
	// statuses. With NackEval also set and an AsyncRaft, the applier
	// answers the worker as soon as such an entry is proposed, and nacks
	// the eval with NackEval if the entry then fails.
	AckEval, NackEval func(evalID, token string) error
	// Stopping, when set, is closed when the server shuts down: from then
	// on the applier waits for no entry in raft (raft may not apply it
	// before it stops) and fails the plans waiting for one with
	// ErrShuttingDown. Losing leadership alone still answers each plan
	// with its entry's outcome.
	Stopping <-chan struct{}
}

// Applier takes plans off the queue and commits what fits.
//
// By default it is a pipeline (pipeline.go): it evaluates each plan on the
// committed state overlaid with the placements of the plans still in
// raft, proposes it at once, and answers it when its entry commits, so raft
// writes and replicates the entries of many plans together (group commit).
// Config.Serial makes it the strictly serial applier instead.
type Applier struct {
	queue  *PlanQueue
	tokens TokenChecker
	state  StateSource
	raft   Raft
	clock  clock.Clock
	log    *slog.Logger
	newID  func() string

	// Modes, decided by NewApplier and fixed for the applier's life.
	serial bool // Run is runSerial, else runPipelined
	// async is raft's asynchronous side; nil: each entry is committed
	// before the applier goes on (the pipeline degenerates into the
	// serial applier, keeping synchronous steps deterministic).
	async      AsyncRaft
	rejectHook RejectHook
	// onEvaluate, when set, is told how long each plan's evaluation took.
	onEvaluate func(time.Duration)
	// ackEval, when set, acks an eval whose final status a plan's entry
	// wrote (final.go); without it plans never carry final statuses.
	// nackEval returns such an eval to the broker when its entry failed
	// after its worker was answered (answerBeforeCommit).
	ackEval, nackEval func(evalID, token string) error
	// answerEarly: a plan that finishes its eval is answered when its
	// entry is proposed (answerBeforeCommit): async and nackEval set.
	answerEarly bool

	// mu makes steps exclusive, so Run and ApplyOne never interleave and
	// the pipeline's state below is only touched by one step at a time.
	mu        sync.Mutex
	lastIndex uint64 // the latest index a plan of this applier committed at

	ov       *overlay  // what the next plan is evaluated on; nil: take a fresh snapshot
	inflight []*member // proposed, oldest first
	waiting  []*member // nothing to commit, rejected on top of inflight: wait for it
	// runCtx is Run's context while it runs: the goroutines collecting
	// commits settle the pipeline under it.
	runCtx context.Context
	// settled wakes Run's loop after a goroutine collecting a commit has
	// settled the pipeline: a full pipeline takes plans again only then.
	settled chan struct{}
	// stopping is Config.Stopping (nil: never).
	stopping <-chan struct{}
}

// NewApplier returns an applier working as c says.
func NewApplier(c Config) *Applier {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Applier{queue: c.Queue, tokens: c.Tokens, state: c.State, raft: c.Raft, clock: c.Clock, log: log, newID: c.NewID,
		serial: c.Serial, rejectHook: c.RejectHook, onEvaluate: c.OnEvaluate, ackEval: c.AckEval, nackEval: c.NackEval,
		runCtx: context.Background(), settled: make(chan struct{}, 1), stopping: c.Stopping}
	a.async, _ = c.Raft.(AsyncRaft)
	a.answerEarly = a.async != nil && a.nackEval != nil
	return a
}

// Run applies queued plans until ctx ends. Plans whose entries are being
// committed when ctx ends are still answered with their outcome; plans
// with nothing to commit waiting for those entries are failed with
// ErrNotLeader, since ctx ends when this server stops leading.
func (a *Applier) Run(ctx context.Context) {
	if a.serial {
		a.runSerial(ctx)
		return
	}
	a.runPipelined(ctx)
}

func (a *Applier) runSerial(ctx context.Context) {
	for {
		p, err := a.queue.Dequeue(ctx)
		if err != nil {
			return
		}
		_ = a.ApplyOne(p) // the error went to the plan's submitter
	}
}

// Step applies the next queued plan through the whole pipeline alone
// (ApplyOne), without waiting for one; it reports whether there was one.
// It is for a caller that drives the leader step by step (the simulator).
func (a *Applier) Step() bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := a.queue.Dequeue(ctx)
	if err != nil {
		return false
	}
	_ = a.ApplyOne(p) // the error went to the plan's submitter
	return true
}

// ApplyOne checks, evaluates and commits one plan and answers its
// submitter; the returned error is the one the submitter got. It is the
// synchronous step: the plan passes through the whole pipeline alone.
func (a *Applier) ApplyOne(p *PendingPlan) error {
	ctx := context.Background()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flush(ctx)
	a.evaluate(ctx, p)
	a.flush(ctx)
	if a.isStopping() {
		p.respond(nil, ErrShuttingDown) // unless flush answered it
	}
	<-p.done
	return p.err
}

// isStopping reports whether the server is shutting down (Config.Stopping).
func (a *Applier) isStopping() bool {
	select {
	case <-a.stopping:
		return true
	default:
		return false
	}
}

func (a *Applier) logRejections(plan *structs.Plan, rejections []Rejection) {
	for _, r := range rejections {
		a.log.Debug("plan rejected on node", "eval_id", plan.EvalID, "node_id", r.NodeID,
			"reason", r.Reason, "dimension", r.Dimension, "detail", r.Detail, "all_at_once", plan.AllAtOnce)
	}
}
