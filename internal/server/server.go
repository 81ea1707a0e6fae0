// Package server is a Drover server: it wires raft, the FSM and state
// store to the roles below and answers the RPC methods every transport
// (HTTP in-process, the RPC port, a follower forwarding) calls.
//
// One room per role:
//   - the method table (methods.go, method.go, access.go, forward.go):
//     every RPC method registered once with its wire name, handler, read or
//     write kind, route (the leader, or the server asked) and access rule;
//     Method.Call checks the caller, forwards, then runs the handler. The
//     handlers are the *_endpoint.go files, one per method family;
//   - package auth: ACL resolution and cache, result filters, node and
//     server credentials, workload identity, the keyring;
//   - package cluster: raft's stores and transport, serf, bootstrap,
//     member reconciliation, autopilot, the peer filter;
//   - package leader: the leader's duties in one table (production
//     goroutines and the simulator's stepped mode alike) and the one
//     routing of written or restored evals to the broker and trackers;
//   - the evaluation pipeline's leaf packages (broker, blockedevals,
//     planapply, deploywatch, drainer, periodic), and here the workers
//     (worker.go, remote_worker.go) that run the schedulers;
//   - here also: eval writes (evals.go), node writes (nodes.go), the
//     leadership monitor (leader.go), blocking reads and lists
//     (blocking.go, list.go), snapshots, the timeline and metrics.
//
// The role packages never import this one: each declares the narrow
// interface it needs, implemented by an adapter in roles.go or leader.go.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/server/authmethod"
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/server/cluster"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/server/stream"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// raftApplyTimeout bounds how long a write waits to be committed.
const raftApplyTimeout = 30 * time.Second

// Server is one Drover server.
type Server struct {
	config *Config
	log    *slog.Logger

	fsm  *fsm.FSM
	raft *raft.Raft // cluster.Raft()

	// The cluster (package cluster): this server's stable identity, raft
	// (its stores, and its transport over the shared rpc listener), gossip
	// membership, autopilot, and the pool of RPC connections to other
	// servers (forwarding, stats).
	nodeID  string // cluster.NodeID()
	bootID  string // new each start (remote_worker.go)
	cluster *cluster.Cluster
	// startIndex is the log's last command at start: nothing is answered
	// locally until the FSM has applied it (see replayed).
	startIndex uint64
	// readyIndex is the leadership barrier's index once this leader has
	// applied it (0 while not leading or not yet caught up).
	readyIndex atomic.Uint64
	remoteHeld remoteHeld
	// ForwardedHTTP answers the HTTP requests client-only agents forward
	// over their RPC connection: the agent stores its own API handler here.
	// Until it is set such streams are refused.
	ForwardedHTTP atomic.Pointer[http.Handler]

	// Event is the event stream endpoint (a stream, not an RPC method);
	// every other endpoint is called through its registration in
	// methods.go (JobRegister.Call(ctx, s, args)).
	Event *EventEndpoint

	// events is the event stream's broker, fed by the FSM and the timeline.
	events *stream.Broker
	// auth resolves tokens, filters results, holds the credentials and the
	// keyring (package auth).
	auth *auth.Service
	// authKeys caches auth methods' JWKS and discovery documents for
	// logins (package authmethod).
	authKeys *authmethod.Keys
	// summaries memoize job summaries for job listings.
	summaries summaryMemo

	// The evaluation pipeline. The broker, blocked tracker, plan queue and
	// applier act only while this server leads; workers run everywhere.
	broker     *broker.Broker
	blocked    *blockedevals.Tracker
	planQueue  *planapply.PlanQueue
	applier    *planapply.Applier
	workers    []*Worker
	timeline   *Timeline
	schedulers map[string]scheduler.Factory
	// leader is the leader's duties (package leader): it enables the
	// pipeline while this server leads, routes written evals and runs the
	// duty table.
	leader *leader.Leader

	// leadershipOverride feeds the leadership monitor like raft does; tests
	// use it to step the leader down and up. leadershipSettled reports
	// each handled change.
	leadershipOverride chan bool
	leadershipSettled  chan bool
	randMu             sync.Mutex

	// ctx is the server's root context, canceled by Shutdown: every
	// goroutine the server starts (workers, the leadership monitor and,
	// through it, the leader's duties, the RPC accept and serve loops)
	// derives from it and is counted in bg, which Shutdown waits for.
	ctx    context.Context
	cancel context.CancelFunc
	bg     goGroup
	// duties is the current term's leader duties (nil while not
	// leading), which the leadership monitor waits for.
	duties       atomic.Pointer[goGroup]
	shutdownOnce sync.Once
	shutdownCh   chan struct{}
	// raftStopped is closed once raft has shut down. hashicorp/raft never
	// answers a proposal still in its (buffered) apply channel then, so
	// every wait on a raft future ends here too (raftWrites.outcome).
	raftStopped chan struct{}
}

// New starts a server: opens raft's stores, restores state from them and
// joins (or bootstraps) the cluster.
func New(cfg *Config) (*Server, error) {
	c := cfg.withDefaults()
	s := &Server{config: c, log: c.Logger.With("component", "server"), shutdownCh: make(chan struct{}),
		raftStopped: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	nodeID, err := cluster.LoadOrCreateNodeID(c.NodeID, dataDirUnlessDev(c))
	if err != nil {
		return nil, err
	}
	s.nodeID, s.bootID = nodeID, NewUUID()
	if s.auth, err = auth.New(auth.Config{ACL: c.ACL, Region: c.Region, NodeID: nodeID, DataDir: dataDirUnlessDev(c),
		Clock: c.Clock, Logger: s.log, OIDCIssuer: c.OIDCIssuer}, authHost{s}); err != nil {
		return nil, err
	}
	f, err := fsm.New(c.Logger.With("component", "fsm"))
	if err != nil {
		return nil, err
	}
	s.fsm = f
	s.events = stream.New(c.EventBufferSize)
	s.authKeys = authmethod.NewKeys(s.now)
	f.SetEventPublisher(eventTap{s})
	s.setupPipeline()
	f.SetEvalSink(s.leader.Sink())
	if err := s.setupRaft(); err != nil {
		return nil, err
	}
	if err := s.cluster.Start(); err != nil {
		s.Shutdown()
		return nil, err
	}
	s.Event = &EventEndpoint{srv: s}
	s.registerMetrics()
	s.startWorkers()
	s.goTracked("leadership-monitor", func(context.Context) { s.monitorLeadership() })
	return s, nil
}

// goTracked runs fn in a goroutine on the server's root context, counted
// in s.bg under name so Shutdown waits for it to return (and Waiting
// names it while it has not).
func (s *Server) goTracked(name string, fn func(ctx context.Context)) {
	s.bg.Go(name, func() { fn(s.ctx) })
}

// Waiting names what a shutdown still waits for: the server's goroutines
// and the leader's duties that have not returned yet (empty once they all
// have; raft's own shutdown comes after them).
func (s *Server) Waiting() []string {
	out := s.bg.Running()
	if d := s.duties.Load(); d != nil {
		for _, name := range d.Running() {
			out = append(out, "leader duty "+name)
		}
	}
	return out
}

// setupPipeline builds the evaluation pipeline's components (disabled
// until this server leads).
func (s *Server) setupPipeline() {
	c := s.config
	s.timeline = NewTimeline(c.Clock)
	s.timeline.SetStepObserver(s.observeEvalStep)
	s.broker = broker.New(c.Broker, c.Clock)
	s.broker.SetObserver(func(evalID, status string, _ time.Time) {
		s.timeline.Record(evalID, status, "", "")
	})
	s.blocked = blockedevals.New(s.broker, c.Clock)
	s.planQueue = planapply.NewPlanQueue()
	s.applier = planapply.NewApplier(planapply.Config{Queue: s.planQueue, Tokens: s.broker, State: stateSource{s}, Raft: planRaft{s},
		Clock: c.Clock, Log: s.log.With("component", "plan_applier"), NewID: c.NewID,
		Serial: c.SerialPlanApply, RejectHook: c.PlanRejectHook,
		OnEvaluate: func(d time.Duration) { c.Metrics.PlanEvaluate.Observe(telemetry.Ms(d)) },
		// The leader acks an eval whose final status its plan's entry
		// wrote, for whichever worker (local or remote) holds it, and
		// returns it to the broker when the entry failed: the eval is then
		// still pending in the state and another worker schedules it.
		AckEval:  func(evalID, token string) error { return s.releaseHeld(evalID, token, true) },
		NackEval: func(evalID, token string) error { return s.releaseHeld(evalID, token, false) },
		// At shutdown the applier stops waiting for entries in raft.
		Stopping: s.ctx.Done()})
	s.leader = leader.New(leader.Config{
		Server: leaderServer{s}, Broker: s.broker, Blocked: s.blocked, PlanQueue: s.planQueue, Applier: s.applier,
		Timeline: s.timeline, Log: s.log, Ctx: s.ctx, Clock: c.Clock, NewID: c.NewID, Rand: s.randInt63n,
		ManualDuties:          c.ManualDuties,
		UnblockFailedInterval: c.UnblockFailedInterval, GCInterval: c.GCInterval,
		EvalGCThreshold: c.EvalGCThreshold, JobGCThreshold: c.JobGCThreshold, BatchEvalGCThreshold: c.BatchEvalGCThreshold,
		NodeGCThreshold:         c.NodeGCThreshold,
		FailedFollowUpBaseDelay: c.FailedFollowUpBaseDelay, FailedFollowUpJitter: c.FailedFollowUpJitter,
		MinHeartbeatTTL: c.MinHeartbeatTTL, MaxHeartbeatsPerSecond: c.MaxHeartbeatsPerSecond, HeartbeatGrace: c.HeartbeatGrace,
		Extra: s.leaderDuties(),
	})
	// The built-in schedulers read the server's injected clock (reschedule
	// delays, alloc and eval times, placement durations).
	s.schedulers = scheduler.Builtins(scheduler.Deps{Now: c.Clock.Now, Stopwatch: func() func() time.Duration {
		start := c.Clock.Now()
		return func() time.Duration { return c.Clock.Now().Sub(start) }
	}})
	if c.Schedulers != nil {
		s.schedulers = maps.Clone(c.Schedulers)
	}
	if _, ok := s.schedulers[structs.JobTypeCore]; !ok {
		s.schedulers[structs.JobTypeCore] = s.leader.CoreScheduler()
	}
	s.leadershipOverride = make(chan bool)
	s.leadershipSettled = make(chan bool, 16)
}

// startWorkers starts NumSchedulers workers.
func (s *Server) startWorkers() {
	for i := 0; i < s.config.NumSchedulers; i++ {
		w := newWorker(s, fmt.Sprintf("worker-%d", i))
		s.workers = append(s.workers, w)
		if !s.config.ManualDuties {
			s.goTracked(w.id, w.run)
		}
	}
}

// setupRaft starts raft (package cluster) on the FSM.
func (s *Server) setupRaft() error {
	c, err := cluster.New(clusterConfig(s.config, s.nodeID, s.log), clusterHost{s}, s.fsm)
	if err != nil {
		return err
	}
	s.cluster, s.raft, s.startIndex = c, c.Raft(), c.StartIndex()
	return nil
}

// State returns the server's state store. Objects read from it are
// immutable: copy before changing.
func (s *Server) State() *state.StateStore { return s.fsm.State() }

// FSM returns the server's finite state machine.
func (s *Server) FSM() *fsm.FSM { return s.fsm }

// Config returns the server's effective configuration.
func (s *Server) Config() *Config { return s.config }

// IsLeader reports whether this server leads the cluster.
func (s *Server) IsLeader() bool { return s.raft.State() == raft.Leader }

// Leader returns the leader's address, or "" when there is none.
func (s *Server) Leader() string {
	addr, _ := s.raft.LeaderWithID()
	return string(addr)
}

// LastContact is the time since this server last heard from the leader;
// zero on the leader itself.
func (s *Server) LastContact() time.Duration {
	if s.IsLeader() {
		return 0
	}
	last := s.raft.LastContact()
	if last.IsZero() {
		return 0
	}
	return time.Since(last)
}

// WaitForLeader blocks until the cluster has a leader or the timeout passes.
func (s *Server) WaitForLeader(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for s.Leader() == "" {
		select {
		case <-deadline.C:
			return ErrNoLeader
		case <-s.shutdownCh:
			return ErrShutdown
		case <-tick.C:
		}
	}
	return nil
}

// Leave leaves the cluster gracefully (agent leave_on_interrupt,
// leave_on_terminate): a leader hands leadership to another voter first,
// then the server leaves gossip, so the leader removes it from raft at
// once (reconcile: a member that left is no longer a peer). Shutdown
// follows.
func (s *Server) Leave() {
	if s.cluster == nil || !s.cluster.HasGossip() {
		return
	}
	if f := s.raft.GetConfiguration(); s.IsLeader() && f.Error() == nil && len(f.Configuration().Servers) > 1 {
		if err := s.raft.LeadershipTransfer().Error(); err != nil {
			s.log.Warn("leave: leadership transfer", "error", err)
		}
	}
	s.cluster.GracefulLeave()
}

// Shutdown stops raft and closes its stores. Acknowledged writes are
// already durable in the log store; a snapshot is not required.
func (s *Server) Shutdown() error {
	var err error
	s.shutdownOnce.Do(func() {
		close(s.shutdownCh)
		s.events.Close()
		s.cancel()
		if s.cluster != nil {
			s.cluster.Leave()
		}
		s.broker.SetEnabled(false)
		s.planQueue.SetEnabled(false)
		s.bg.Wait()
		if s.cluster != nil {
			err = s.cluster.Shutdown()
		}
		close(s.raftStopped)
	})
	return err
}

// raftApply proposes one typed entry and waits until it is applied,
// returning its raft index. An error returned by the FSM is returned here.
// The wait ends early when ctx does (the caller went away, or the server
// shuts down: pass s.ctx for the server's own writes): the entry may
// still commit, and the error says so. raft itself gives up after
// raftApplyTimeout, or at ctx's deadline when that is sooner.
func (s *Server) raftApply(ctx context.Context, t structs.MessageType, msg any) (uint64, error) {
	index, err := raftWrites{s}.apply(ctx, t, msg)
	if err != nil && IsDiskFull(err) {
		// The cause names the store's files: it goes to the log, and
		// the caller (perhaps over a forwarded RPC) gets a plain 503.
		s.log.Error("raft write failed: disk full", "entry_type", t, "error", err)
		return 0, DiskFull(err)
	}
	return index, err
}

// raftWrites is how the server writes through raft: it proposes typed
// entries (with the config's test hooks), waits for their outcome, and
// stops waiting when the caller goes away or raft stops.
type raftWrites struct{ s *Server }

// apply is raftApply before its errors are mapped.
func (w raftWrites) apply(ctx context.Context, t structs.MessageType, msg any) (uint64, error) {
	timeout := raftApplyTimeout
	if deadline, ok := ctx.Deadline(); ok {
		timeout = min(timeout, max(time.Until(deadline), time.Millisecond))
	}
	f, err := w.proposeWithin(t, msg, timeout)
	if err != nil {
		return 0, err
	}
	index, err := w.outcome(ctx, f)
	var stopped stoppedWaiting
	if errors.As(err, &stopped) {
		return 0, &CodedError{Code: http.StatusServiceUnavailable,
			Msg: fmt.Sprintf("raft entry type %d: stopped waiting for the write to commit (it may or may not apply): %v", t, stopped.why)}
	}
	return index, err
}

// stoppedWaiting: the caller went away, or raft stopped, before the
// entry's outcome was known.
type stoppedWaiting struct{ why error }

func (e stoppedWaiting) Error() string {
	return "stopped waiting for the entry's outcome: " + e.why.Error()
}
func (e stoppedWaiting) Unwrap() error { return e.why }

// outcome is the package's raftOutcome, ending early (stoppedWaiting)
// when ctx ends or raft has stopped: hashicorp/raft never answers a
// proposal it took but had not yet written when it shut down.
func (w raftWrites) outcome(ctx context.Context, f raft.ApplyFuture) (uint64, error) {
	if err := w.wait(ctx, f); err != nil {
		var stopped stoppedWaiting
		if errors.As(err, &stopped) {
			return 0, err
		}
	}
	return raftOutcome(f) // answered: returns at once
}

// wait waits for raft to answer f and returns its error, or
// stoppedWaiting when ctx ends or raft stops first.
func (w raftWrites) wait(ctx context.Context, f raft.Future) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return stoppedWaiting{ctx.Err()}
	case <-w.s.raftStopped:
		select {
		case err := <-done: // answered as raft stopped
			return err
		default:
		}
		return stoppedWaiting{ErrShutdown}
	}
}

// propose encodes msg and proposes it without waiting for the commit.
func (w raftWrites) propose(t structs.MessageType, msg any) (raft.ApplyFuture, error) {
	return w.proposeWithin(t, msg, raftApplyTimeout)
}

// proposeWithin is propose with raft's own enqueue timeout.
func (w raftWrites) proposeWithin(t structs.MessageType, msg any, timeout time.Duration) (raft.ApplyFuture, error) {
	s := w.s
	if h := s.config.RaftApplyHook; h != nil {
		h(t)
	}
	if f := s.config.RaftApplyFault; f != nil {
		if err := f(t); err != nil {
			return nil, err
		}
	}
	buf, err := structs.Encode(t, msg)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", msg, err)
	}
	return s.raft.Apply(buf, timeout), nil
}

// raftOutcome waits for a proposed entry to be committed and applied by
// the local FSM, and returns its index or why it failed.
func raftOutcome(f raft.ApplyFuture) (uint64, error) {
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return 0, ErrNoLeader
		}
		return 0, err
	}
	if err, ok := f.Response().(error); ok && err != nil {
		if errors.Is(err, state.ErrNamespaceMissing) {
			// Deleted between the endpoint's check and this entry.
			return 0, BadRequest("invalid job: Namespace: %v", err)
		}
		return 0, err
	}
	return f.Index(), nil
}

// now is the server's clock reading, used to stamp entries before raft.
func (s *Server) now() time.Time { return s.config.Clock.Now() }

// WaitUntilReady blocks until the cluster has a leader and, when this
// server is that leader, its leader duties are established (broker and
// tracker rebuilt, default scheduler configuration written), or the
// timeout passes. Before that, a write can race the leader's own setup.
func (s *Server) WaitUntilReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if err := s.WaitForLeader(timeout); err != nil {
		return err
	}
	for s.IsLeader() && !s.LeaderActive() {
		if time.Now().After(deadline) {
			return ErrNoLeader
		}
		select {
		case <-s.shutdownCh:
			return ErrShutdown
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// goGroup runs named goroutines and waits for them, and can say which
// are still running: a shutdown that takes too long names what it waits
// for (Server.Waiting).
type goGroup struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]int // name -> goroutines of that name running
}

// Go runs fn on a goroutine counted under name.
func (g *goGroup) Go(name string, fn func()) {
	g.mu.Lock()
	if g.running == nil {
		g.running = map[string]int{}
	}
	g.running[name]++
	g.mu.Unlock()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.done(name)
		fn()
	}()
}

func (g *goGroup) done(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running[name]--; g.running[name] == 0 {
		delete(g.running, name)
	}
}

// Wait waits for every goroutine started with Go.
func (g *goGroup) Wait() { g.wg.Wait() }

// Running names the goroutines still running, sorted ("name" or "name
// xN" for N of them).
func (g *goGroup) Running() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.running))
	for name, n := range g.running {
		if n > 1 {
			name = fmt.Sprintf("%s x%d", name, n)
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
