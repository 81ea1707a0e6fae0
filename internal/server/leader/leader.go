package leader

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Server is what the leader's duties need from the server: its state
// store to read, and narrow writers. Every write goes through raft; the
// duties never call an endpoint.
type Server interface {
	State() *state.StateStore
	Raft
	Evals
	Nodes
	Jobs
}

// Raft proposes one typed entry and waits until it is applied, returning
// its index (the writes of the deployment watcher, periodic dispatcher,
// drainer and core GC that have no narrower writer).
type Raft interface {
	Apply(t structs.MessageType, msg any) (uint64, error)
}

// Evals writes evaluations.
type Evals interface {
	// UpsertEvals writes evals (status changes and follow-ups) in one entry.
	UpsertEvals(evals []*structs.Evaluation) error
	// NewEvalDeleter deletes evals with their allocs in bounded entries,
	// noting why on each deleted eval's timeline.
	NewEvalDeleter(why string) EvalDeleter
	// AllocsByEval returns the allocs of each given eval.
	AllocsByEval(evals []*structs.Evaluation) (map[string][]*structs.Allocation, error)
}

// EvalDeleter queues eval deletes and writes them in bounded entries.
type EvalDeleter interface {
	// Add queues an eval and its allocs, writing entries whenever one is
	// full; an eval is never deleted before the allocs it explains.
	Add(evalID string, allocIDs []string) error
	// Flush writes what is queued.
	Flush() error
}

// Nodes writes node status.
type Nodes interface {
	// SetNodeStatus changes a node's status with its node-update evals in
	// the same entry.
	SetNodeStatus(nodeID, status string) error
}

// Jobs makes what the server owns in a job write.
type Jobs interface {
	// NewJobEval creates a pending evaluation of a job for a trigger.
	NewJobEval(job *structs.Job, trigger string) *structs.Evaluation
	// ClearServerOwnedFields drops what only the server decides (versions,
	// indexes, status, submit time) from a job about to be registered.
	ClearServerOwnedFields(job *structs.Job)
}

// Timeline records eval steps (the server's *Timeline).
type Timeline interface {
	Record(evalID, status, worker, note string)
	Entries(evalID string) []*structs.EvalTimelineEntry
}

// Applier is the plan applier: a loop in production, one step at a time
// in the stepped mode.
type Applier interface {
	Run(ctx context.Context)
	Step() bool
}

// Config is what New needs.
type Config struct {
	Server    Server
	Broker    *broker.Broker
	Blocked   *blockedevals.Tracker
	PlanQueue *planapply.PlanQueue
	Applier   Applier
	Timeline  Timeline
	Log       *slog.Logger
	// Ctx is the server's root context: a write that fails once it is
	// done (shutdown) is not logged.
	Ctx   context.Context
	Clock clock.Clock
	NewID func() string
	// Rand returns a random int in [0, n) from the server's seeded source
	// (shared with the rest of the server, so a seeded run is repeatable).
	Rand func(n int64) int64
	// ManualDuties: no duty goroutine; the caller steps the duties
	// (DutySteps).
	ManualDuties bool

	UnblockFailedInterval time.Duration
	GCInterval            time.Duration
	EvalGCThreshold       time.Duration
	JobGCThreshold        time.Duration
	// BatchEvalGCThreshold is EvalGCThreshold for batch jobs' evals (0:
	// EvalGCThreshold).
	BatchEvalGCThreshold time.Duration
	// NodeGCThreshold is how long a node stays down, with nothing
	// running, before the job GC deregisters it (0: never).
	NodeGCThreshold         time.Duration
	FailedFollowUpBaseDelay time.Duration
	FailedFollowUpJitter    time.Duration
	MinHeartbeatTTL         time.Duration
	MaxHeartbeatsPerSecond  float64
	HeartbeatGrace          time.Duration

	// Extra are the duties the server's wiring supplies (the keyring's
	// and the cluster's), appended to the leader's own in the duty table.
	Extra []Duty
}

// Leader is the leader's duties over the evaluation pipeline: it enables
// and rebuilds the broker, blocked tracker and plan queue when this server
// leads, routes every written eval to them, and runs the duty table.
type Leader struct {
	c         Config
	srv       Server
	log       *slog.Logger
	broker    *broker.Broker
	blocked   *blockedevals.Tracker
	planQueue *planapply.PlanQueue
	timeline  Timeline
	heartbeat *Heartbeats

	active atomic.Bool
	// stepped is the current leadership term's stepped duties
	// (ManualDuties; nil otherwise or when not leading).
	stepMu  sync.Mutex
	stepped *term
	// steps names the duties that have a stepped form, in table order.
	steps []string

	failedEvals       *evalQueue
	stoppedJobBlocked *evalQueue // blocked evals of stopped or purged jobs, to cancel
	cancelableWake    chan struct{}
}

// New builds the leader's duties, disabled until Establish.
func New(c Config) *Leader {
	l := &Leader{
		c: c, srv: c.Server, log: c.Log, broker: c.Broker, blocked: c.Blocked, planQueue: c.PlanQueue,
		timeline: c.Timeline, failedEvals: newEvalQueue(), stoppedJobBlocked: newEvalQueue(),
		cancelableWake: make(chan struct{}, 1),
	}
	l.heartbeat = newHeartbeats(l)
	for _, d := range l.table(nil) {
		if d.stepped() {
			l.steps = append(l.steps, d.Name)
		}
	}
	return l
}

// Active reports whether this server's leader duties are running (the
// broker, blocked tracker and plan queue are enabled).
func (l *Leader) Active() bool { return l.active.Load() }

// Heartbeats are the nodes' heartbeat timers.
func (l *Leader) Heartbeats() *Heartbeats { return l.heartbeat }

// Establish enables the plan queue, broker and blocked tracker, rebuilds
// them from the state store and re-arms every node's heartbeat timer. The
// duties start with StartDuties.
func (l *Leader) Establish() error {
	// Paused before it is enabled: a configuration that pauses the broker
	// holds from the first eval of the term.
	if _, err := l.applySchedulerConfig(nil); err != nil {
		return err
	}
	l.planQueue.SetEnabled(true)
	l.broker.SetEnabled(true)
	l.blocked.SetEnabled(true)
	l.active.Store(true)
	if err := l.restoreEvals(); err != nil {
		return err
	}
	return l.heartbeat.rearmAll()
}

// Revoke disables and flushes every leader-only component: a new leader
// rebuilds them from the state store. The duties' context must be
// canceled (and their goroutines done) first.
func (l *Leader) Revoke() {
	l.active.Store(false)
	l.setTerm(nil)
	l.heartbeat.stopAll()
	l.broker.SetEnabled(false)
	l.broker.SetPaused(false) // the next term applies the configuration again
	l.blocked.SetEnabled(false)
	l.planQueue.SetEnabled(false)
}

// Rebuild drops the leader's in-memory pipeline state and rebuilds it
// from the (restored) state store, as a new leader would.
func (l *Leader) Rebuild() error {
	if !l.active.Load() {
		return nil
	}
	l.broker.SetEnabled(false)
	l.blocked.SetEnabled(false)
	l.broker.SetEnabled(true)
	l.blocked.SetEnabled(true)
	if err := l.restoreEvals(); err != nil {
		return err
	}
	return l.heartbeat.rearmAll()
}

// restoreEvals hands every pending eval to the broker and every blocked
// eval to the tracker, so a leader change loses nothing. Failed evals that
// never got their follow-up are queued for the reaper.
func (l *Leader) restoreEvals() error {
	evals, err := l.srv.State().Evals(nil, "*")
	if err != nil {
		return err
	}
	for _, e := range evals {
		l.route(e, "", restored)
	}
	return nil
}

// NotifyAcked wakes the cancelable reaper: an ack may have superseded evals.
func (l *Leader) NotifyAcked() {
	select {
	case l.cancelableWake <- struct{}{}:
	default:
	}
}

func (l *Leader) now() time.Time { return l.c.Clock.Now() }

// every runs fn every interval (on the injected clock) until ctx is done.
func (l *Leader) every(ctx context.Context, interval time.Duration, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.c.Clock.After(interval):
			fn()
		}
	}
}

// applySchedulerConfig applies the parts of the scheduler configuration
// the leader acts on (read under ws): PauseEvalBroker pauses the broker's
// deliveries. It reports whether it changed anything.
func (l *Leader) applySchedulerConfig(ws memdb.WatchSet) (bool, error) {
	cfg, err := l.srv.State().SchedulerConfig(ws)
	if err != nil {
		return false, err
	}
	paused := cfg != nil && cfg.PauseEvalBroker
	if l.broker.Paused() == paused {
		return false, nil
	}
	l.broker.SetPaused(paused)
	l.log.Info("eval broker pause changed by the scheduler configuration", "paused", paused)
	return true, nil
}
