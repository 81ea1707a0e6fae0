// Package config holds the Drover agent configuration. It reads the same
// keys as Nomad's agent configuration (HCL or JSON), so existing Nomad agent
// files work unchanged for the subset Drover supports.
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

// Addresses optionally override BindAddr per listener.
type Addresses struct {
	HTTP string
	RPC  string
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
	JobGCThreshold         time.Duration
	NodeGCThreshold        time.Duration
	DeploymentGCThreshold  time.Duration
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
	Reserved            Reserved
	// NodeRegistrationToken is presented to the servers to register.
	NodeRegistrationToken string
	// HostVolumes are the host_volume "name" { path read_only } blocks.
	HostVolumes []HostVolume
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
	Args   []string
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
		Ports:      Ports{HTTP: 4646, RPC: 4647, Serf: 4648},
		Server: ServerConfig{
			NumSchedulers:          runtime.NumCPU(),
			EventBufferSize:        100,
			HeartbeatGrace:         10 * time.Second,
			MinHeartbeatTTL:        10 * time.Second,
			MaxHeartbeatsPerSecond: 50,
			EvalGCThreshold:        time.Hour,
			JobGCThreshold:         4 * time.Hour,
			NodeGCThreshold:        24 * time.Hour,
			DeploymentGCThreshold:  time.Hour,
			ServerJoin:             ServerJoin{RetryInterval: 30 * time.Second},
		},
		Client: ClientConfig{NodePool: "default"},
		ACL:    ACLConfig{TokenTTL: 30 * time.Second, PolicyTTL: 30 * time.Second},
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
