package server

import (
	"context"
	"log/slog"

	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/server/cluster"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ACL resolution, result filters, workload identity, the node and server
// credentials and the keyring live in package auth; these names keep the
// server's API (its config, the agent's checks) as it was.

// ACLConfig is the server's side of the agent's acl { } block.
type ACLConfig = auth.ACLConfig

// ErrPermissionDenied is the answer to a token that is unknown, expired,
// or lacks the capability a request needs. It never says which.
var ErrPermissionDenied = auth.ErrPermissionDenied

// Kinds of objects NamespaceOf knows.
const (
	ObjectAlloc      = auth.ObjectAlloc
	ObjectEval       = auth.ObjectEval
	ObjectDeployment = auth.ObjectDeployment
)

// Auth is the server's ACL resolver (ResolveToken, NamespaceOf,
// InternalToken, ...) and keyring.
func (s *Server) Auth() *auth.Service { return s.auth }

// authHost is the server as package auth sees it.
type authHost struct{ s *Server }

var _ auth.Server = authHost{}

func (h authHost) State() *state.StateStore { return h.s.State() }

func (h authHost) RaftApply(t structs.MessageType, msg any) (uint64, error) {
	return h.s.raftApply(h.s.ctx, t, msg)
}

func (h authHost) Peers() ([]auth.Peer, bool) {
	if !h.s.cluster.HasGossip() {
		return nil, false
	}
	members := h.s.cluster.Servers()
	peers := make([]auth.Peer, 0, len(members))
	for _, m := range members {
		peers = append(peers, auth.Peer{ID: m.ID, Name: m.Name, RPCAddr: m.RPCAddr, Alive: m.Status == serf.StatusAlive})
	}
	return peers, true
}

func (h authHost) RPC(ctx context.Context, addr, method string, args, reply any) error {
	return h.s.cluster.Pool().RPC(ctx, addr, method, args, reply)
}

// The cluster's configuration types, under the names the server's Config
// and its users (agent, bench) know.
type (
	// SerfConfig configures gossip membership (cluster.SerfConfig).
	SerfConfig = cluster.SerfConfig
	// AutopilotConfig is autopilot's configuration (see structs).
	AutopilotConfig = structs.AutopilotConfig
	// RaftFootprint is what raft's stores hold (cluster.RaftFootprint).
	RaftFootprint = cluster.RaftFootprint
	// PeerCut is how fault injection cuts traffic to a peer (cluster.Cut).
	PeerCut = cluster.Cut
)

// The kinds of PeerCut (Config.PeerFilter).
const (
	PeerReachable = cluster.PeerReachable
	PeerRefused   = cluster.PeerRefused
	PeerDropped   = cluster.PeerDropped
)

// Raft log backends (server { raft_logstore { backend = ... } }).
const (
	LogStoreWAL    = cluster.LogStoreWAL
	LogStoreBoltDB = cluster.LogStoreBoltDB
)

// clusterHost is the cluster's view of this server.
type clusterHost struct{ s *Server }

var _ cluster.Host = clusterHost{}

func (h clusterHost) Go(name string, fn func(ctx context.Context)) { h.s.goTracked(name, fn) }
func (h clusterHost) ServerFailed(id string)                       { h.s.nackHeld(id, "") }
func (h clusterHost) MembersChanged()                              { h.s.auth.WakeKEKPush() }
func (h clusterHost) StoredAutopilotConfig() (*structs.AutopilotConfig, error) {
	return h.s.State().AutopilotConfig(nil)
}

// clusterConfig is the part of c the cluster runs on.
func clusterConfig(c *Config, nodeID string, log *slog.Logger) cluster.Config {
	return cluster.Config{
		NodeID: nodeID, NodeName: c.NodeName, Region: c.Region, Datacenter: c.Datacenter,
		DataDir: c.DataDir, RaftLogStore: c.RaftLogStore, DevMode: c.DevMode,
		RaftAddr: c.RaftAddr, RaftNetwork: c.RaftNetwork, RaftTransport: c.RaftTransport,
		RaftTimings: (*cluster.RaftTimings)(c.RaftTimings), BootstrapExpect: c.BootstrapExpect,
		PeerFilter: c.PeerFilter, PeerDialTimeout: c.PeerDialTimeout, Serf: c.Serf, Autopilot: c.Autopilot,
		RPCClientTLS: c.RPCClientTLS, Logger: log,
	}
}

// dataDirUnlessDev is where a server keeps its state: nowhere in dev mode.
func dataDirUnlessDev(c *Config) string {
	if c.DevMode {
		return ""
	}
	return c.DataDir
}

// SerfAddr is the address this server gossips on ("" without gossip).
func (s *Server) SerfAddr() string { return s.cluster.SerfAddr() }

// NodeID is this server's raft identity.
func (s *Server) NodeID() string { return s.nodeID }

// RaftFootprint reads what raft's stores hold.
func (s *Server) RaftFootprint() (RaftFootprint, error) { return s.cluster.RaftFootprint() }
