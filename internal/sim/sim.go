package sim

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/server/broker"
)

// Epoch is when every deterministic simulation starts.
var Epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Options tune a simulation. The zero value is a deterministic run.
type Options struct {
	// Realtime runs on the real clock, with Workers scheduler goroutines
	// and a goroutine per node: for load and timing, not determinism.
	Realtime bool
	// Workers is the number of scheduling workers: 1 by default (the
	// deterministic order), 2 in real time.
	Workers int
	// Settle (real time only) is how long the pipeline must show no
	// change before it counts as idle (default 50ms).
	Settle time.Duration
	// IdleTimeout (real time only) bounds one wait for quiescence
	// (default 60s).
	IdleTimeout time.Duration
	// MinHeartbeatTTL and HeartbeatGrace are the server's heartbeat
	// settings (defaults 10s and 10s).
	MinHeartbeatTTL time.Duration
	HeartbeatGrace  time.Duration
	// FailedFollowUpDelay and Jitter delay failed-follow-up evals (server
	// defaults: 1m plus up to 5m).
	FailedFollowUpDelay  time.Duration
	FailedFollowUpJitter time.Duration
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 1
		if o.Realtime {
			o.Workers = 2
		}
	}
	if o.Settle <= 0 {
		o.Settle = 50 * time.Millisecond
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 60 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Sim is one simulated cluster: a server and its simulated nodes.
type Sim struct {
	seed   int64
	opts   Options
	srv    *server.Server
	clk    *clock.Manual // nil in real time
	start  time.Time
	ids    *idSource
	faults *faults
	bounds idleBounds

	mu      sync.Mutex
	nodes   map[string]*Node // by name
	jobs    map[string]*JobSpec
	stopped chan struct{}
	loops   sync.WaitGroup
	closed  atomic.Bool
	runs    atomic.Int64 // scheduler runs, for Metrics
}

// New starts a simulated cluster's server and waits for it to lead.
func New(seed int64, opts Options) (*Sim, error) {
	opts = opts.withDefaults()
	s := &Sim{
		seed: seed, opts: opts, ids: newIDSource(seed), faults: newFaults(), bounds: defaultIdleBounds,
		nodes: map[string]*Node{}, jobs: map[string]*JobSpec{}, stopped: make(chan struct{}),
	}
	var clk clock.Clock = clock.Real{}
	s.start = time.Now()
	if !opts.Realtime {
		s.clk = clock.NewManual(Epoch)
		clk, s.start = s.clk, Epoch
	}
	srv, err := server.New(s.serverConfig(clk))
	if err != nil {
		return nil, fmt.Errorf("sim: start server: %w", err)
	}
	s.srv = srv
	if err := s.waitLeading(); err != nil {
		srv.Shutdown()
		return nil, err
	}
	return s, nil
}

func (s *Sim) serverConfig(clk clock.Clock) *server.Config {
	var tokens atomic.Int64
	return &server.Config{
		NodeName: "sim", DevMode: true, RaftAddr: fmt.Sprintf("sim-%d-%p", s.seed, s),
		NumSchedulers: s.opts.Workers, LeaderPausedWorkersPercent: 1, ManualDuties: !s.opts.Realtime,
		Logger: s.opts.Logger, Clock: clk,
		Rand:  rand.New(rand.NewPCG(uint64(s.seed), 0xd20e)),
		NewID: s.ids.next,
		Broker: broker.Config{NewToken: func() string {
			return fmt.Sprintf("token-%d", tokens.Add(1))
		}},
		Schedulers:              s.schedulerFactories(clk.Now),
		PlanRejectHook:          s.faults.rejectHook,
		RaftApplyHook:           s.faults.applyHook,
		MinHeartbeatTTL:         s.opts.MinHeartbeatTTL,
		HeartbeatGrace:          s.opts.HeartbeatGrace,
		FailedFollowUpBaseDelay: s.opts.FailedFollowUpDelay,
		FailedFollowUpJitter:    s.opts.FailedFollowUpJitter,
	}
}

// waitLeading waits until raft has elected the server (the one real-time
// wait of a deterministic run: raft's own election) and its leadership is
// established, so the first event finds the broker enabled.
func (s *Sim) waitLeading() error {
	if err := s.srv.WaitForLeader(10 * time.Second); err != nil {
		return fmt.Errorf("sim: no leader: %w", err)
	}
	if err := s.srv.AwaitLeadership(10 * time.Second); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

// Close stops the nodes' loops (real time) and the server.
func (s *Sim) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	close(s.stopped)
	s.loops.Wait()
	return s.srv.Shutdown()
}

// Server is the simulated cluster's server, for reads and extra calls.
func (s *Sim) Server() *server.Server { return s.srv }

// Seed is the simulation's seed.
func (s *Sim) Seed() int64 { return s.seed }

// Now is the simulation's current time.
func (s *Sim) Now() time.Time {
	if s.clk != nil {
		return s.clk.Now()
	}
	return time.Now()
}

// Elapsed is the simulated time since the start.
func (s *Sim) Elapsed() time.Duration { return s.Now().Sub(s.start) }

// sortedNodes returns the nodes in name order (the order every sweep
// visits them, so sweeps are deterministic).
func (s *Sim) sortedNodes() []*Node {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Node, 0, len(s.nodes))
	for _, n := range s.nodes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// node looks a node up by name.
func (s *Sim) node(name string) (*Node, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[name]
	if !ok {
		return nil, fmt.Errorf("sim: no node %q", name)
	}
	return n, nil
}
