// Package server is a Drover server: raft, the FSM and state store, the
// endpoints every transport (HTTP, client RPC, leader forwarding) calls, and
// the leadership monitor that turns the leader's duties (package leader) on
// and off.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	autopilot "github.com/hashicorp/raft-autopilot"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
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

	fsm     *fsm.FSM
	raft    *raft.Raft
	trans   raft.Transport
	stores  *raftStores
	raftLog hclog.Logger

	// The cluster (see cluster.go): this server's stable identity, raft
	// over the shared rpc listener, gossip membership, and the pool of
	// RPC connections to other servers (forwarding, stats).
	nodeID    string
	bootID    string // new each start (remote_worker.go)
	raftLayer *raftLayer
	cluster   *cluster
	// gossip is cluster for raft's transport, which resolves addresses on
	// its own goroutines from before setupCluster sets cluster.
	gossip   atomic.Pointer[cluster]
	connPool *rpcwire.Pool
	// startIndex is the log's last command at start: nothing is answered
	// locally until the FSM has applied it (see replayed).
	startIndex uint64
	// readyIndex is the leadership barrier's index once this leader has
	// applied it (0 while not leading or not yet caught up).
	readyIndex atomic.Uint64
	autopilot  *autopilot.Autopilot
	apState    autopilotState
	remoteHeld remoteHeld

	// Endpoints, callable in-process by every transport.
	Job        *JobEndpoint
	Eval       *EvalEndpoint
	Search     *SearchEndpoint
	Region     *RegionEndpoint
	NodePool   *NodePoolEndpoint
	Namespace  *NamespaceEndpoint
	Alloc      *AllocEndpoint
	Deployment *DeploymentEndpoint
	Node       *NodeEndpoint
	Operator   *OperatorEndpoint
	Status     *StatusEndpoint
	System     *SystemEndpoint
	ACL        *ACLEndpoint
	Event      *EventEndpoint
	Cluster    *ClusterEndpoint
	Plan       *PlanEndpoint

	// events is the event stream's broker, fed by the FSM and the timeline.
	events *stream.Broker
	// ServiceRegistration is the native service catalog.
	ServiceRegistration *ServiceRegistrationEndpoint
	Variables           *VariablesEndpoint
	Keyring             *KeyringEndpoint
	// keys holds the key-encryption key and unwrapped root keys;
	// kekHolders, on the leader, the servers it handed the KEK to.
	keys             *keystore
	kekHolders       kekHolders
	rekeyWake        chan struct{} // wakes the leader's rekeyer (keyring_rekey.go)
	kekWake          chan struct{} // wakes the leader's KEK hand-over (keyring_kek.go)
	WorkloadIdentity *WorkloadIdentityEndpoint

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

	aclCache      aclCache
	internalToken string // see InternalToken

	// ctx is the server's root context, canceled by Shutdown: every
	// goroutine the server starts (workers, the leadership monitor and,
	// through it, the leader's duties, the RPC accept and serve loops)
	// derives from it and is counted in bg, which Shutdown waits for.
	ctx          context.Context
	cancel       context.CancelFunc
	bg           sync.WaitGroup
	shutdownOnce sync.Once
	shutdownCh   chan struct{}
}

// New starts a server: opens raft's stores, restores state from them and
// joins (or bootstraps) the cluster.
func New(cfg *Config) (*Server, error) {
	c := cfg.withDefaults()
	s := &Server{config: c, log: c.Logger.With("component", "server"), shutdownCh: make(chan struct{}), connPool: rpcwire.NewPool()}
	s.connPool.TLS = c.RPCClientTLS
	s.ctx, s.cancel = context.WithCancel(context.Background())
	nodeID, err := loadOrCreateNodeID(c.NodeID, dataDirUnlessDev(c))
	if err != nil {
		return nil, err
	}
	s.nodeID, s.bootID = nodeID, NewUUID()
	s.rekeyWake = make(chan struct{}, 1)
	s.kekWake = make(chan struct{}, 1)
	if s.keys, err = newKeystore(dataDirUnlessDev(c)); err != nil {
		return nil, err
	}
	f, err := fsm.New(c.Logger.With("component", "fsm"))
	if err != nil {
		return nil, err
	}
	s.fsm = f
	s.events = stream.New(c.EventBufferSize)
	f.SetEventPublisher(eventTap{s})
	s.setupPipeline()
	f.SetEvalSink(s.leader.Sink())
	if err := s.setupRaft(); err != nil {
		return nil, err
	}
	s.Job = &JobEndpoint{srv: s}
	s.Eval = &EvalEndpoint{srv: s}
	s.Search = &SearchEndpoint{srv: s}
	s.Region = &RegionEndpoint{srv: s}
	s.NodePool = &NodePoolEndpoint{srv: s}
	s.Namespace = &NamespaceEndpoint{srv: s}
	s.Node = &NodeEndpoint{srv: s}
	s.Alloc = &AllocEndpoint{srv: s}
	s.Deployment = &DeploymentEndpoint{srv: s}
	s.Operator = &OperatorEndpoint{srv: s}
	s.Status = &StatusEndpoint{srv: s}
	s.System = &SystemEndpoint{srv: s}
	s.ACL = &ACLEndpoint{srv: s}
	s.internalToken = NewUUID()
	s.Cluster = &ClusterEndpoint{srv: s}
	s.Plan = &PlanEndpoint{srv: s}
	if err := s.setupCluster(); err != nil {
		s.Shutdown()
		return nil, err
	}
	s.setupAutopilot(s.raftLog)
	s.Event = &EventEndpoint{srv: s}
	s.registerMetrics()
	s.ServiceRegistration = &ServiceRegistrationEndpoint{srv: s}
	s.Variables = &VariablesEndpoint{srv: s}
	s.Keyring = &KeyringEndpoint{srv: s}
	s.WorkloadIdentity = &WorkloadIdentityEndpoint{srv: s}
	s.startWorkers()
	s.goTracked(func(context.Context) { s.monitorLeadership() })
	return s, nil
}

// goTracked runs fn in a goroutine on the server's root context, counted
// in s.bg so Shutdown waits for it to return.
func (s *Server) goTracked(fn func(ctx context.Context)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		fn(s.ctx)
	}()
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
	s.applier = planapply.NewApplier(s.planQueue, s.broker, stateSource{s}, planRaft{s}, c.Clock, s.log.With("component", "plan_applier"), c.NewID)
	s.applier.SetRejectHook(c.PlanRejectHook)
	s.applier.SetSerial(c.SerialPlanApply)
	s.applier.SetEvalFinisher(s.ackEvalFinishedByPlan, s.nackEvalOfFailedPlan)
	s.applier.SetEvaluateObserver(func(d time.Duration) { c.Metrics.PlanEvaluate.Observe(telemetry.Ms(d)) })
	s.leader = leader.New(leader.Config{
		Server: leaderServer{s}, Broker: s.broker, Blocked: s.blocked, PlanQueue: s.planQueue, Applier: s.applier,
		Timeline: s.timeline, Log: s.log, Ctx: s.ctx, Clock: c.Clock, NewID: c.NewID, Rand: s.randInt63n,
		ManualDuties:          c.ManualDuties,
		UnblockFailedInterval: c.UnblockFailedInterval, GCInterval: c.GCInterval,
		EvalGCThreshold: c.EvalGCThreshold, JobGCThreshold: c.JobGCThreshold,
		FailedFollowUpBaseDelay: c.FailedFollowUpBaseDelay, FailedFollowUpJitter: c.FailedFollowUpJitter,
		MinHeartbeatTTL: c.MinHeartbeatTTL, MaxHeartbeatsPerSecond: c.MaxHeartbeatsPerSecond, HeartbeatGrace: c.HeartbeatGrace,
		Extra: s.leaderDuties(),
	})
	// The built-in schedulers read the server's injected clock (reschedule
	// delays, alloc and eval times).
	s.schedulers = scheduler.Builtins(scheduler.Deps{Now: c.Clock.Now})
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
			s.goTracked(w.run)
		}
	}
}

func (s *Server) setupRaft() error {
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: slogWriter{s.log.With("component", "raft")}, DisableTime: true})
	s.raftLog = hlog
	stores, err := openRaftStores(s.config, hlog)
	if err != nil {
		return err
	}
	s.stores = stores
	if err := s.setupRaftTransport(hlog); err != nil {
		stores.Close()
		return err
	}
	if s.startIndex, err = lastCommandIndex(stores.logs); err != nil {
		stores.Close()
		return fmt.Errorf("server: read raft log: %w", err)
	}
	r, err := raft.NewRaft(raftConfig(s.config, s.nodeID, hlog), s.fsm, stores.logs, stores.stable, stores.snaps, s.trans)
	if err != nil {
		stores.Close()
		return fmt.Errorf("server: start raft: %w", err)
	}
	s.raft = r
	stores.started(r)
	return bootstrapIfNew(s.config, s.nodeID, r, s.trans)
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

// Shutdown stops raft and closes its stores. Acknowledged writes are
// already durable in the log store; a snapshot is not required.
func (s *Server) Shutdown() error {
	var err error
	s.shutdownOnce.Do(func() {
		close(s.shutdownCh)
		s.events.Close()
		s.cancel()
		if s.cluster != nil {
			s.cluster.leave()
		}
		s.broker.SetEnabled(false)
		s.planQueue.SetEnabled(false)
		s.bg.Wait()
		if s.raft != nil {
			err = s.raft.Shutdown().Error()
		}
		if c, ok := s.trans.(interface{ Close() error }); ok {
			_ = c.Close()
		}
		_ = s.connPool.Close()
		if s.stores != nil {
			err = errors.Join(err, s.stores.Close())
		}
	})
	return err
}

// raftApply proposes one typed entry and waits until it is applied,
// returning its raft index. An error returned by the FSM is returned here.
func (s *Server) raftApply(t structs.MessageType, msg any) (uint64, error) {
	f, err := s.raftPropose(t, msg)
	if err != nil {
		return 0, err
	}
	return raftOutcome(f)
}

// raftPropose encodes msg and proposes it without waiting for the commit.
func (s *Server) raftPropose(t structs.MessageType, msg any) (raft.ApplyFuture, error) {
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
	return s.raft.Apply(buf, raftApplyTimeout), nil
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

// slogWriter forwards raft's hclog lines into our structured log.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Warn(strings.TrimSpace(string(p)))
	return len(p), nil
}

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
