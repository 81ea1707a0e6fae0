package server

import (
	"crypto/tls"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// Config configures a server.
type Config struct {
	// NodeName names this server among its peers.
	NodeName   string
	Region     string
	Datacenter string
	// DataDir holds raft's log and snapshots. Empty only in DevMode.
	DataDir string
	// RaftLogStore is raft's log backend on disk: LogStoreWAL or
	// LogStoreBoltDB. Empty keeps the backend a data dir already holds
	// and picks the WAL for a new one (cluster/raft_logstore.go).
	RaftLogStore string
	// DevMode runs a single-voter raft with in-memory stores.
	DevMode bool
	// RaftAddr is this server's raft address (its RPC address).
	RaftAddr string
	// NodeID is this server's identity in raft; empty means the one kept
	// in DataDir (created on first start), or a fresh one in DevMode.
	NodeID string
	// RaftNetwork carries raft over the rpc listener (ServeRPC) to other
	// servers; a lone in-process server can do without.
	RaftNetwork bool
	// PeerFilter, when set, is asked before every raft connection, RPC
	// and gossip packet or stream to a peer's address (rpc or serf) and on
	// every read and write of an open one: PeerRefused breaks the traffic,
	// PeerDropped silently drops it (the fault harness's network
	// partitions, cluster/peer_filter.go).
	PeerFilter func(addr string) PeerCut
	// PeerDialTimeout bounds connecting to another server for an RPC
	// (forwarding, remote workers, autopilot); default 1 s: a leader whose
	// packets are dropped must not hold a forwarded call long.
	PeerDialTimeout time.Duration
	// ForwardTimeout bounds a call forwarded to the leader, waiting for a
	// leader included (forward.go); default 5 s. A call in flight to a
	// leader that lost its place is abandoned at once, whatever is left.
	ForwardTimeout time.Duration
	// Serf configures gossip membership; nil runs without (one server).
	Serf *SerfConfig
	// Autopilot is the initial autopilot configuration.
	Autopilot *AutopilotConfig
	// RaftTransport carries raft traffic. Nil means an in-memory transport,
	// which is enough for a single server; multi-server clustering plugs a
	// network transport in here.
	RaftTransport raft.Transport
	// BootstrapExpect is how many servers form the initial cluster; 1 (or 0
	// in DevMode) bootstraps a single-voter cluster at once.
	BootstrapExpect int
	// NumSchedulers is the number of scheduling workers.
	NumSchedulers int
	// ManualDuties starts neither the workers' nor the leader duties'
	// goroutines: the caller drives them with StepDuties (package leader),
	// on a manual clock, for a deterministic run (the simulator).
	ManualDuties bool
	// RaftTimings overrides raft's timeouts; nil picks defaults that suit
	// the mode (fast in DevMode).
	RaftTimings *RaftTimings

	// Metrics receives the server's timings and scrape-time gauges; nil
	// gives the server a set of its own.
	Metrics *telemetry.Metrics

	// EventBufferSize is how many event batches (one per raft index) the
	// event stream retains for late and resuming subscribers; 0 picks
	// stream.DefaultBufferSize (100, Nomad's event_buffer_size).
	EventBufferSize int

	// Broker configures the eval broker (nack timeout, delivery limit...).
	Broker broker.Config
	// Schedulers maps eval types to scheduler factories; nil means the
	// built-in schedulers. EnabledSchedulers limits what workers dequeue.
	Schedulers        map[string]scheduler.Factory
	EnabledSchedulers []string
	// LeaderPausedWorkersPercent of the workers pause while this server
	// leads (at least one keeps running), leaving CPU to the plan applier.
	LeaderPausedWorkersPercent int
	// FailedFollowUpBaseDelay plus up to FailedFollowUpJitter delays each
	// failed-follow-up eval.
	FailedFollowUpBaseDelay time.Duration
	FailedFollowUpJitter    time.Duration
	// UnblockFailedInterval is how often evals blocked by max-plan-attempts
	// are retried.
	UnblockFailedInterval time.Duration
	// GCInterval is how often the leader schedules garbage collection;
	// terminal evals older than EvalGCThreshold and stopped jobs older than
	// JobGCThreshold are deleted.
	// Heartbeats: each node gets a TTL of at least MinHeartbeatTTL, scaled
	// so the cluster does at most MaxHeartbeatsPerSecond, and is marked
	// down HeartbeatGrace after its TTL passes without a heartbeat.
	MinHeartbeatTTL        time.Duration
	MaxHeartbeatsPerSecond float64
	HeartbeatGrace         time.Duration

	GCInterval      time.Duration
	EvalGCThreshold time.Duration
	JobGCThreshold  time.Duration
	// BatchEvalGCThreshold is EvalGCThreshold for the evals of batch
	// jobs (server batch_eval_gc_threshold); 0 means EvalGCThreshold.
	BatchEvalGCThreshold time.Duration
	// NodeGCThreshold is how long a down node with nothing running stays
	// registered (server node_gc_threshold); 0 means never collected.
	NodeGCThreshold time.Duration
	// DefaultSchedulerConfig is the scheduler configuration written when
	// the cluster first gets a leader (server default_scheduler_config);
	// nil means structs.DefaultSchedulerConfiguration.
	DefaultSchedulerConfig *structs.SchedulerConfiguration

	// SerialPlanApply turns the plan applier's pipeline off: each plan is
	// then evaluated, committed and answered before the next is looked at.
	// The pipeline (the default) evaluates and proposes plans while
	// earlier ones are still in raft, which writes them together;
	// `drover bench -serial-plans` measures one against the other.
	SerialPlanApply bool
	// PlanRejectHook injects plan rejections (tests and the simulator).
	PlanRejectHook planapply.RejectHook
	// RaftApplyHook runs before every raft entry is proposed and may block:
	// the simulator delays applies with it, as a slow disk or network would.
	RaftApplyHook func(structs.MessageType)
	// RaftApplyFault, when set, is asked before every raft entry is
	// proposed; an error fails that write as a lost leadership or a full
	// disk would (tests inject write failures with it).
	RaftApplyFault func(structs.MessageType) error

	Logger *slog.Logger
	Clock  clock.Clock
	// Rand drives random choices (jitter); seed it for determinism.
	Rand  *rand.Rand
	NewID func() string

	// ACL configures access control (see package auth).
	ACL ACLConfig
	// OIDCIssuer is server { oidc_issuer }: the iss of workload
	// identities and the issuer /.well-known/openid-configuration
	// announces ("": neither, as in Nomad).
	OIDCIssuer string
	// RPCTLS, when set, makes the RPC port speak only mutual TLS
	// (tls { rpc = true }).
	RPCTLS *tls.Config
	// RPCClientTLS is the client side of the same, for this server's
	// connections to other servers (forwarding, raft).
	RPCClientTLS *tls.Config
	// RPCMaxConnsPerClient caps the RPC connections one client IP may hold
	// (agent limits.rpc_max_conns_per_client); 0 means no cap.
	RPCMaxConnsPerClient int
	// RPCHandshakeTimeout bounds a new RPC connection's protocol byte and
	// TLS handshake (agent limits.rpc_handshake_timeout); 0 means the
	// default, DefaultRPCHandshakeTimeout, and a negative value none.
	RPCHandshakeTimeout time.Duration
	// JobMaxCount is the largest count a task group may ask for (server
	// job_max_count); 0 means DefaultJobMaxCount.
	JobMaxCount int
	// DisableDispatchedJobSummaryMetrics leaves dispatched jobs out of the
	// nomad.nomad.job_summary.* gauges (telemetry
	// disable_dispatched_job_summary_metrics): each dispatch is a job.
	DisableDispatchedJobSummaryMetrics bool
}

// DefaultRPCHandshakeTimeout is Nomad's rpc_handshake_timeout default.
const DefaultRPCHandshakeTimeout = 5 * time.Second

// DefaultJobMaxCount is the default cap on a task group's count.
const DefaultJobMaxCount = 10000

// RaftTimings are raft's failure-detection timeouts.
type RaftTimings struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
}

// ScaledRaftTimings are raft's default timeouts with the heartbeat,
// election and leader-lease timeouts multiplied by m (the agent's
// server.raft_multiplier, as Nomad scales them); nil for m <= 1, which
// keeps the defaults.
func ScaledRaftTimings(m int) *RaftTimings {
	if m <= 1 {
		return nil
	}
	d := raft.DefaultConfig()
	f := time.Duration(m)
	return &RaftTimings{Heartbeat: d.HeartbeatTimeout * f, Election: d.ElectionTimeout * f,
		LeaderLease: d.LeaderLeaseTimeout * f, Commit: d.CommitTimeout}
}

// DefaultConfig returns a config for a dev server.
func DefaultConfig() *Config {
	return &Config{
		NodeName:      "drover-server",
		Region:        "global",
		Datacenter:    "dc1",
		DevMode:       true,
		RaftAddr:      "127.0.0.1:4647",
		NumSchedulers: runtime.NumCPU(),
	}
}

func (c *Config) withDefaults() *Config {
	out := *c
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	if out.Clock == nil {
		out.Clock = clock.Real{}
	}
	if out.Metrics == nil {
		out.Metrics = telemetry.New()
	}
	if out.Rand == nil {
		out.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if out.PeerDialTimeout == 0 {
		out.PeerDialTimeout = time.Second
	}
	if out.ForwardTimeout == 0 {
		out.ForwardTimeout = 5 * time.Second
	}
	if out.LeaderPausedWorkersPercent == 0 {
		out.LeaderPausedWorkersPercent = 75
	}
	if out.FailedFollowUpBaseDelay == 0 {
		out.FailedFollowUpBaseDelay = time.Minute
	}
	if out.FailedFollowUpJitter == 0 {
		out.FailedFollowUpJitter = 5 * time.Minute
	}
	if out.UnblockFailedInterval == 0 {
		out.UnblockFailedInterval = time.Minute
	}
	if out.MinHeartbeatTTL == 0 {
		out.MinHeartbeatTTL = 10 * time.Second
	}
	if out.MaxHeartbeatsPerSecond == 0 {
		out.MaxHeartbeatsPerSecond = 50
	}
	if out.HeartbeatGrace == 0 {
		out.HeartbeatGrace = 10 * time.Second
	}
	if out.GCInterval == 0 {
		out.GCInterval = 5 * time.Minute
	}
	if out.EvalGCThreshold == 0 {
		out.EvalGCThreshold = time.Hour
	}
	if out.JobGCThreshold == 0 {
		out.JobGCThreshold = 4 * time.Hour
	}
	if out.RPCHandshakeTimeout == 0 {
		out.RPCHandshakeTimeout = DefaultRPCHandshakeTimeout
	}
	if out.NumSchedulers <= 0 {
		out.NumSchedulers = runtime.NumCPU()
	}
	if out.NewID == nil {
		out.NewID = NewUUID
	}
	if out.RaftAddr == "" {
		out.RaftAddr = "127.0.0.1:4647"
	}
	if out.Region == "" {
		out.Region = "global"
	}
	if out.JobMaxCount <= 0 {
		out.JobMaxCount = DefaultJobMaxCount
	}
	return &out
}

// ServerGCPercent is the garbage collector's target (GOGC) in a process
// that runs a server, unless GOGC is set. A server's heap is mostly its
// state store, which lives long and changes by copying paths of its radix
// trees: each write allocates, little of it outlives the next writes, and
// the live heap the collector must mark every cycle is large. At Go's
// default of 100 a 3-server `drover bench` spent 14% of its CPU in the
// collector; at 200 it spends 8% and places about a fifth more allocs
// per second, for a heap that may grow to 3 times the live data instead
// of 2 (scenario a's peak RSS: 344 MB -> 483 MB for three servers in one
// process).
//
// That factor is capped for big heaps: after every collection the target
// is lowered so the heap may grow by at most ServerGCHeadroom beyond what
// the collection left live (but no lower than ServerGCMinPercent). A
// million allocs leave about 2 GB live; at 200 the heap grew to 6 GB and
// the process to 7 GiB RSS, where the bound is 4 GiB. Small and
// medium servers (live heap under half a GiB) keep 200.
const ServerGCPercent = 200

// ServerGCHeadroom is the most a server's heap may grow beyond its live
// data between collections, while that keeps the target at or above
// ServerGCMinPercent.
const ServerGCHeadroom = 1 << 30

// ServerGCMinPercent is the lowest target the headroom cap sets: below
// it the collector would run so often that marking the live heap took
// most of the CPU.
const ServerGCMinPercent = 25

// serverGCPercentFor is the target for a heap that a collection left with
// live bytes: ServerGCPercent, lowered so the heap grows by at most
// headroom, not below ServerGCMinPercent.
func serverGCPercentFor(live, headroom uint64) int {
	if live == 0 {
		return ServerGCPercent
	}
	return int(max(ServerGCMinPercent, min(ServerGCPercent, 100*headroom/live)))
}

// gcTuners counts started tuners; a tuner stops once a newer one starts.
var gcTuners atomic.Int64

// startGCTuner re-sets the collector's target after every collection
// (a finalizer on an unreachable object runs once per cycle) from the
// heap the collection left live. It stops when a newer tuner starts or
// when something else changed the target since it last set it: an
// explicit setting wins.
func startGCTuner(headroom uint64) {
	gen := gcTuners.Add(1)
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	set := int64(ServerGCPercent)
	debug.SetGCPercent(ServerGCPercent)
	var onGC func(*gcSentinel)
	onGC = func(s *gcSentinel) {
		metrics.Read(samples)
		if gcTuners.Load() != gen || int64(samples[1].Value.Uint64()) != set {
			return
		}
		if p := int64(serverGCPercentFor(samples[0].Value.Uint64(), headroom)); p != set {
			debug.SetGCPercent(int(p))
			set = p
		}
		runtime.SetFinalizer(s, onGC)
	}
	runtime.SetFinalizer(&gcSentinel{}, onGC)
}

// gcSentinel is the object whose finalizer marks a collection (not zero
// sized: the runtime may not finalize those).
type gcSentinel struct{ _ [16]byte }

// TuneGC sets the collector's target of a process that runs a server to
// ServerGCPercent (capped for big heaps: startGCTuner), unless GOGC
// (looked up with lookupEnv) already chose
// one, and returns the target in effect (-1: collection off) and whether
// GOGC chose it. It changes process-wide state, so only the commands that
// own the process call it (drover agent with a server, drover bench), never
// server.New.
func TuneGC(lookupEnv func(string) (string, bool)) (percent int, fromEnv bool) {
	if v, ok := lookupEnv("GOGC"); ok && v != "" {
		if v == "off" {
			return -1, true
		}
		if n, err := strconv.Atoi(v); err == nil {
			return n, true
		}
		// The runtime ignores a malformed GOGC and keeps 100; so do we,
		// rather than second-guess the operator's intent.
		return 100, true
	}
	startGCTuner(ServerGCHeadroom)
	return ServerGCPercent, false
}
