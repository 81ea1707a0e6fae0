package server

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/hashicorp/raft"
)

// Config configures a server.
type Config struct {
	// NodeName names this server among its peers.
	NodeName   string
	Region     string
	Datacenter string
	// DataDir holds raft's log and snapshots. Empty only in DevMode.
	DataDir string
	// DevMode runs a single-voter raft with in-memory stores.
	DevMode bool
	// RaftAddr is this server's raft address (its RPC address).
	RaftAddr string
	// RaftTransport carries raft traffic. Nil means an in-memory transport,
	// which is enough for a single server; multi-server clustering plugs a
	// network transport in here.
	RaftTransport raft.Transport
	// BootstrapExpect is how many servers form the initial cluster; 1 (or 0
	// in DevMode) bootstraps a single-voter cluster at once.
	BootstrapExpect int
	// NumSchedulers is the number of scheduling workers.
	NumSchedulers int
	// RaftTimings overrides raft's timeouts; nil picks defaults that suit
	// the mode (fast in DevMode).
	RaftTimings *RaftTimings

	Logger *slog.Logger
	Clock  Clock
	NewID  func() string
}

// RaftTimings are raft's failure-detection timeouts.
type RaftTimings struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
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
		out.Clock = SystemClock{}
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
	return &out
}
