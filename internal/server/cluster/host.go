package cluster

import (
	"context"
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
)

// Host is what the cluster needs from the server it runs in (package
// server implements it).
type Host interface {
	// Go runs fn on a goroutine the server tracks under name (its
	// shutdown waits for it), with the server's root context, canceled on
	// shutdown.
	Go(name string, fn func(ctx context.Context))
	// ServerFailed is called when gossip sees server id fail or leave:
	// what its workers held is handed back at once.
	ServerFailed(id string)
	// MembersChanged is called on every membership event (the leader
	// hands the keyring's KEK to a server that joined).
	MembersChanged()
	// StoredAutopilotConfig is the raft-stored autopilot configuration
	// (nil until an operator sets one).
	StoredAutopilotConfig() (*structs.AutopilotConfig, error)
}

// Config is the part of the server's configuration the cluster runs on
// (see the server's Config for each field).
type Config struct {
	// NodeID is this server's raft identity (LoadOrCreateNodeID).
	NodeID     string
	NodeName   string
	Region     string
	Datacenter string
	// DataDir holds raft's log and snapshots and serf's snapshot. Empty
	// only in DevMode.
	DataDir string
	// RaftLogStore is raft's log backend on disk: LogStoreWAL or
	// LogStoreBoltDB. Empty keeps the backend a data dir already holds
	// and picks the WAL for a new one (raft_logstore.go).
	RaftLogStore string
	// DevMode runs a single-voter raft with in-memory stores.
	DevMode bool
	// RaftAddr is this server's raft address (its RPC address).
	RaftAddr string
	// RaftNetwork carries raft over the rpc listener (RaftLayer) to other
	// servers; a lone in-process server can do without.
	RaftNetwork bool
	// RaftTransport, when set, carries raft traffic instead.
	RaftTransport raft.Transport
	// RaftTimings overrides raft's timeouts; nil picks defaults that suit
	// the mode (fast in DevMode).
	RaftTimings *RaftTimings
	// BootstrapExpect is how many servers form the initial cluster; 1 (or 0
	// in DevMode) bootstraps a single-voter cluster at once.
	BootstrapExpect int
	// PeerFilter, when set, says how traffic to a peer's address is cut
	// (the fault harness's partitions, peer_filter.go); nil in production.
	PeerFilter func(addr string) Cut
	// PeerDialTimeout bounds connecting to another server for an RPC
	// (0: rpcwire.DialTimeout).
	PeerDialTimeout time.Duration
	// Serf configures gossip membership; nil runs without (one server).
	Serf *SerfConfig
	// Autopilot is the initial autopilot configuration.
	Autopilot *structs.AutopilotConfig
	// RPCClientTLS is the client side of the RPC port's mutual TLS, for
	// connections to other servers (forwarding, raft).
	RPCClientTLS *tls.Config
	// Logger is the server's log.
	Logger *slog.Logger
}

// RaftTimings are raft's failure-detection timeouts.
type RaftTimings struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
}
