// Package config holds the Drover agent configuration. It reads the same
// keys as Nomad's agent configuration (HCL or JSON, and HCL1's quoted keys
// and map blocks: hcl1.go), so existing Nomad agent files work unchanged
// for the subset Drover supports.
//
// Every key Nomad documents is in one table (keys.go, Keys): honoured
// (decoded, acted on, with the test that shows it), refused, or warned.
// The decoder judges every key it does not take against the table as it
// goes (keywalk.go): a refused key, or one no Nomad document has (with a
// "did you mean"), is one error at its file:line:col saying Drover does
// not support it, all of them at once; a warned key (only keys that
// cannot change how anything runs: cosmetic ui keys, consul) lands in
// Config.Warnings, which the agent logs. TestKeys_SchemaKeysAreInTheTable
// holds the table to the decoder's types by reflection, and
// docs/reference/agent-config.md is rendered from it (RenderReference).
package config

import (
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Config is the fully decoded agent configuration.
type Config struct {
	Region     string
	Datacenter string
	Name       string
	DataDir    string
	BindAddr   string
	LogLevel   string
	// EnableDebug serves /v1/agent/pprof (always on in -dev).
	EnableDebug bool
	// Logging is where and how the agent logs (log_json, log_file,
	// log_rotate_*, log_include_location, enable_syslog, syslog_facility).
	Logging Logging
	// LeaveOnInterrupt and LeaveOnTerminate make the agent leave the
	// cluster gracefully on SIGINT and SIGTERM: a server leaves gossip and
	// raft, a client's node is marked down... see cmd/drover's
	// waitForSignal.
	LeaveOnInterrupt bool
	LeaveOnTerminate bool
	// Telemetry is the telemetry { } block.
	Telemetry Telemetry
	// UIEnabled is ui { enabled } (default true): false stops serving the
	// web UI.
	UIEnabled bool
	// HTTPAPIResponseHeaders are set on every HTTP API response
	// (http_api_response_headers, e.g. CORS headers).
	HTTPAPIResponseHeaders map[string]string
	// Autopilot is the autopilot { } block: the cluster's autopilot
	// configuration until an operator stores one; nil leaves Nomad's
	// defaults.
	Autopilot *Autopilot
	// Warnings are the keys the files set that Drover accepts and ignores
	// (state Warned in the key table), one line each with file:line:col;
	// the agent logs them at start. Set by the loader, never from a file.
	Warnings []string

	Ports     Ports
	Addresses Addresses
	// Advertise is what other agents use to reach this one (host or
	// host:port), when the bind address is not reachable (0.0.0.0, NAT).
	Advertise Addresses
	Server    ServerConfig
	Client    ClientConfig
	Plugins   []PluginConfig
	ACL       ACLConfig
	TLS       TLSConfig
	Limits    Limits

	// DevMode is set by the -dev flag, never from a file.
	DevMode bool
	// FastGossip uses loopback gossip timings (failures seen in about a
	// second): set by tests and `drover chaos`, never from a file.
	FastGossip bool
	// PartitionFile lists, one per line, rpc and serf addresses of servers
	// whose traffic (raft, RPC, gossip) this server drops (read every
	// 100 ms): the fault
	// harness's network partitions. Flag only, never from a file.
	PartitionFile string
	// RaftApplyFault is handed to the server (server.Config.RaftApplyFault)
	// to fail raft writes as a full disk would: set by tests, never from a
	// file.
	RaftApplyFault func(structs.MessageType) error
}

// Ports are the TCP ports the agent listens on.
type Ports struct {
	HTTP int
	RPC  int
	Serf int
}

// Addresses optionally override BindAddr per listener; as advertise { },
// the addresses others reach this agent at (serf: an IP, with an optional
// :port).
type Addresses struct {
	HTTP string
	RPC  string
	Serf string
}

// Logging is the agent's log output.
type Logging struct {
	JSON bool
	// File, when set, receives the log too (besides stderr): a path, or a
	// directory (ending in /) to hold drover.log. It is rotated when it
	// reaches RotateBytes (0: no size limit) or is RotateDuration old
	// (Nomad's default 24h); RotateMaxFiles rotated files are kept (0: all).
	File            string
	RotateBytes     int
	RotateDuration  time.Duration
	RotateMaxFiles  int
	IncludeLocation bool
	EnableSyslog    bool
	SyslogFacility  string
}

// Telemetry is the telemetry { } block. Drover differs from Nomad on
// purpose in three defaults: PrometheusMetrics, PublishAllocationMetrics
// and PublishNodeMetrics are true (Drover's own tools read them), so
// setting them false is what turns them off.
type Telemetry struct {
	CollectionInterval       time.Duration
	DisableHostname          bool
	UseNodeName              bool
	EnableHostnameLabel      bool
	StatsdAddress            string
	StatsiteAddress          string
	DogStatsdAddress         string
	DogStatsdTags            []string
	PrometheusMetrics        bool
	PublishAllocationMetrics bool
	PublishNodeMetrics       bool
	// FilterDefault lets metrics no prefix_filter rule matches through.
	FilterDefault bool
	// PrefixFilter is Nomad's list of "+prefix" (allow) and "-prefix"
	// (block) rules.
	PrefixFilter                       []string
	DisableDispatchedJobSummaryMetrics bool
	// InMemoryCollectionInterval and InMemoryRetentionPeriod shape the
	// window the JSON form of /v1/metrics reports (10 s, kept 1 m).
	InMemoryCollectionInterval time.Duration
	InMemoryRetentionPeriod    time.Duration
}

// ServerConfig is the server { } block.
type ServerConfig struct {
	Enabled           bool
	BootstrapExpect   int
	NumSchedulers     int
	EnabledSchedulers []string
	// EventBufferSize is how many event batches (raft indexes) the event
	// stream retains for late and resuming subscribers (Nomad's default
	// 100).
	EventBufferSize        int
	HeartbeatGrace         time.Duration
	MinHeartbeatTTL        time.Duration
	MaxHeartbeatsPerSecond float64
	EvalGCThreshold        time.Duration
	// BatchEvalGCThreshold is eval_gc_threshold for the evals of batch
	// jobs (Nomad's default 24h).
	BatchEvalGCThreshold time.Duration
	JobGCThreshold       time.Duration
	// NodeGCThreshold is how long a down node with nothing running
	// stays registered (Nomad's default 24h).
	NodeGCThreshold time.Duration
	// JobGCInterval is how often the leader runs core GC (Nomad's
	// default 5m).
	JobGCInterval time.Duration
	// RaftMultiplier scales raft's timeouts (1 to 10; Nomad's default 1).
	RaftMultiplier int
	// RaftProtocol and EnableEventBroker may only say what Drover does:
	// raft protocol 3, the event stream on (Nomad's defaults).
	RaftProtocol      int
	EnableEventBroker bool
	// Encrypt is the gossip encryption key (base64 of 16, 24 or 32
	// bytes): servers without it cannot join.
	Encrypt string
	// DefaultSchedulerConfig seeds the cluster's scheduler configuration
	// when the cluster is first bootstrapped; nil leaves the built-in one.
	DefaultSchedulerConfig *SchedulerConfig
	ServerJoin             ServerJoin
	// RaftLogStore is raft_logstore { backend }: "wal" or "boltdb"; empty
	// keeps what the data dir holds, and a new one gets the WAL.
	RaftLogStore string
	// NodeRegistrationToken is the cluster's node credential: clients
	// must present it to register (see package server/auth, Node and server credentials).
	NodeRegistrationToken string
	// JobMaxCount caps a task group's count (job_max_count); 0 means
	// the server's default, 10,000.
	JobMaxCount int
	// OIDCIssuer is oidc_issuer: the iss of workload identities and the
	// issuer of /.well-known/openid-configuration.
	OIDCIssuer string
}

// Limits is the limits { } block: per-client connection caps and
// handshake deadlines (0 means none) that keep one host from exhausting
// the agent.
type Limits struct {
	HTTPMaxConnsPerClient int
	RPCMaxConnsPerClient  int
	// HTTPSHandshakeTimeout bounds an HTTPS client's TLS handshake;
	// RPCHandshakeTimeout an RPC connection's first byte and TLS handshake.
	HTTPSHandshakeTimeout time.Duration
	RPCHandshakeTimeout   time.Duration
}

// ServerJoin is the server_join { } block.
type ServerJoin struct {
	// RetryJoin lists serf addresses (host or host:port) of servers to join.
	RetryJoin []string
	// RetryInterval is the wait between join attempts (default 30s);
	// RetryMax bounds the attempts (0: until one succeeds).
	RetryInterval time.Duration
	RetryMax      int
}

// ClientConfig is the client { } block.
type ClientConfig struct {
	Enabled          bool
	Servers          []string
	NodeClass        string
	NodePool         string
	Meta             map[string]string
	Options          map[string]string
	StateDir         string
	AllocDir         string
	NetworkInterface string
	// CNIPath (cni_path, dirs separated by ':'), CNIConfigDir
	// (cni_config_dir) and BridgeNetworkSubnet (bridge_network_subnet)
	// configure the alloc networks of bridge and cni/* modes.
	CNIPath             string
	CNIConfigDir        string
	BridgeNetworkSubnet string
	CPUTotalCompute     int
	MemoryTotalMB       int
	// MinDynamicPort and MaxDynamicPort bound the ports the scheduler
	// picks for dynamic ports on this node (Nomad's 20000-32000).
	MinDynamicPort int
	MaxDynamicPort int
	// MaxKillTimeout caps a task's kill_timeout (Nomad's default 30s).
	MaxKillTimeout time.Duration
	// DisableRemoteExec refuses alloc exec (and task actions) into this
	// client's tasks.
	DisableRemoteExec bool
	// NoHostUUID and CPUDisableDmidecode may only say what Drover does
	// (true, Nomad's default for no_host_uuid): the node ID is kept in
	// the data dir, never taken from the host, and the CPU is read from
	// /proc/cpuinfo, never from dmidecode.
	NoHostUUID          bool
	CPUDisableDmidecode bool
	// GC is the client's garbage collection of terminal allocs.
	GC       ClientGC
	Reserved Reserved
	// HostNetworks are the host_network "name" { } blocks.
	HostNetworks []HostNetwork
	// NodeRegistrationToken is presented to the servers to register.
	NodeRegistrationToken string
	// HostVolumes are the host_volume "name" { path read_only } blocks.
	HostVolumes []HostVolume
}

// Autopilot is the autopilot { } block. Drover has no redundancy zones
// and no custom upgrades (Nomad Enterprise), so their keys may only say
// false.
type Autopilot struct {
	CleanupDeadServers      bool
	LastContactThreshold    time.Duration
	MaxTrailingLogs         int
	MinQuorum               int
	ServerStabilizationTime time.Duration
	EnableRedundancyZones   bool
	DisableUpgradeMigration bool
	EnableCustomUpgrades    bool
}

// DefaultAutopilot is Nomad's autopilot default.
func DefaultAutopilot() *Autopilot {
	return &Autopilot{CleanupDeadServers: true, LastContactThreshold: 200 * time.Millisecond,
		MaxTrailingLogs: 250, ServerStabilizationTime: 10 * time.Second}
}

// ClientGC is when a client destroys terminal allocations (their
// directories): every Interval, and at once when more than MaxAllocs
// allocs are on the node or the alloc dir's disk use passes
// DiskUsageThreshold percent (InodeUsageThreshold for inodes), at most
// ParallelDestroys at a time.
type ClientGC struct {
	Interval            time.Duration
	MaxAllocs           int
	DiskUsageThreshold  float64
	InodeUsageThreshold float64
	ParallelDestroys    int
}

// HostNetwork is a named host network the node offers to jobs
// (network { port "x" { host_network = "name" } }): the addresses of CIDR
// or of Interface, with ReservedPorts withheld.
type HostNetwork struct {
	Name          string
	CIDR          string
	Interface     string
	ReservedPorts string
}

// SchedulerConfig is server.default_scheduler_config.
type SchedulerConfig struct {
	SchedulerAlgorithm                                           string
	MemoryOversubscriptionEnabled                                bool
	RejectJobRegistration                                        bool
	PauseEvalBroker                                              bool
	PreemptSystem, PreemptSysBatch, PreemptBatch, PreemptService bool
}

// HostVolume is a directory the client offers to jobs by name.
type HostVolume struct {
	Name     string
	Path     string
	ReadOnly bool
}

// Reserved is the client's reserved { } block: resources withheld from
// scheduling. ReservedPorts uses Nomad's "22,80,8000-8100" syntax.
type Reserved struct {
	CPU           int
	MemoryMB      int
	DiskMB        int
	ReservedPorts string
}

// PluginConfig is one plugin "NAME" { } block. Config is the arbitrary
// config { } body converted to plain Go values (string, bool, int, float64,
// []any, map[string]any) so each driver can decode it its own way.
type PluginConfig struct {
	Name   string
	Config map[string]any
}

// Default returns the configuration used before any file is applied. The
// values mirror Nomad's defaults.
func Default() *Config {
	return &Config{
		Region:     "global",
		Datacenter: "dc1",
		BindAddr:   "0.0.0.0",
		LogLevel:   "INFO",
		UIEnabled:  true,
		Logging:    Logging{RotateDuration: 24 * time.Hour, SyslogFacility: "LOCAL0"},
		Telemetry: Telemetry{CollectionInterval: time.Second, PrometheusMetrics: true,
			PublishAllocationMetrics: true, PublishNodeMetrics: true, FilterDefault: true,
			InMemoryCollectionInterval: 10 * time.Second, InMemoryRetentionPeriod: time.Minute},
		Ports: Ports{HTTP: 4646, RPC: 4647, Serf: 4648},
		Server: ServerConfig{
			NumSchedulers:          runtime.NumCPU(),
			EventBufferSize:        100,
			HeartbeatGrace:         10 * time.Second,
			MinHeartbeatTTL:        10 * time.Second,
			MaxHeartbeatsPerSecond: 50,
			EvalGCThreshold:        time.Hour,
			BatchEvalGCThreshold:   24 * time.Hour,
			JobGCThreshold:         4 * time.Hour,
			JobGCInterval:          5 * time.Minute,
			NodeGCThreshold:        24 * time.Hour,
			RaftMultiplier:         1,
			RaftProtocol:           3,
			EnableEventBroker:      true,
			ServerJoin:             ServerJoin{RetryInterval: 30 * time.Second},
		},
		Client: ClientConfig{NodePool: "default", MinDynamicPort: 20000, MaxDynamicPort: 32000,
			NoHostUUID: true, CPUDisableDmidecode: true,
			MaxKillTimeout: 30 * time.Second,
			GC: ClientGC{Interval: time.Minute, MaxAllocs: 50, DiskUsageThreshold: 80,
				InodeUsageThreshold: 70, ParallelDestroys: 2}},
		ACL: ACLConfig{TokenTTL: 30 * time.Second, PolicyTTL: 30 * time.Second},
		Limits: Limits{HTTPMaxConnsPerClient: 100, RPCMaxConnsPerClient: 100,
			HTTPSHandshakeTimeout: 5 * time.Second, RPCHandshakeTimeout: 5 * time.Second},
	}
}

// DevConfig returns the -dev configuration: a single node that is both
// server and client, listening only on loopback. Log level stays INFO
// (Nomad uses DEBUG) so the dev agent's output remains readable.
func DevConfig() *Config {
	c := Default()
	c.Name = "dev"
	c.BindAddr = "127.0.0.1"
	c.DevMode = true
	c.Server.Enabled = true
	c.Server.BootstrapExpect = 1
	c.Client.Enabled = true
	return c
}

// HTTPAddr is the host:port the HTTP API listens on.
func (c *Config) HTTPAddr() string {
	return hostPort(c.Addresses.HTTP, c.BindAddr, c.Ports.HTTP)
}

// RPCAddr is the host:port the server RPC listener uses.
func (c *Config) RPCAddr() string {
	return hostPort(c.Addresses.RPC, c.BindAddr, c.Ports.RPC)
}

func hostPort(override, bind string, port int) string {
	host := bind
	if override != "" {
		host = override
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// LevelTrace is below slog's Debug; Nomad's TRACE level maps here.
const LevelTrace = slog.LevelDebug - 4

// logLevels maps Nomad's level names (case-insensitive) to slog levels.
var logLevels = map[string]slog.Level{
	"TRACE": LevelTrace,
	"DEBUG": slog.LevelDebug,
	"INFO":  slog.LevelInfo,
	"WARN":  slog.LevelWarn,
	"ERROR": slog.LevelError,
}

// SlogLevel converts LogLevel for log/slog; unknown names fall back to INFO
// (Validate reports them).
func (c *Config) SlogLevel() slog.Level {
	if l, ok := logLevels[strings.ToUpper(c.LogLevel)]; ok {
		return l
	}
	return slog.LevelInfo
}

// AdvertiseHTTPAddr is the HTTP address other agents should use for this
// one: advertise.http (the HTTP port added when it has none), else the
// address the listener got.
func (c *Config) AdvertiseHTTPAddr(listening string) string {
	a := c.Advertise.HTTP
	if a == "" {
		return listening
	}
	if _, _, err := net.SplitHostPort(a); err != nil {
		_, port, _ := net.SplitHostPort(listening)
		return net.JoinHostPort(a, port)
	}
	return a
}

// ParseLogLevel converts a level name (TRACE, DEBUG, INFO, WARN, ERROR;
// any case) for log/slog.
func ParseLogLevel(name string) (slog.Level, bool) {
	l, ok := logLevels[strings.ToUpper(name)]
	return l, ok
}
