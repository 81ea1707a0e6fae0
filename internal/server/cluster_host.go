package server

import (
	"context"
	"log/slog"

	"github.com/drover-project/drover/internal/server/cluster"
	"github.com/drover-project/drover/internal/structs"
)

// The cluster's configuration types, under the names the server's Config
// and its users (agent, bench) know.
type (
	// SerfConfig configures gossip membership (cluster.SerfConfig).
	SerfConfig = cluster.SerfConfig
	// AutopilotConfig is autopilot's configuration (see structs).
	AutopilotConfig = structs.AutopilotConfig
	// RaftFootprint is what raft's stores hold (cluster.RaftFootprint).
	RaftFootprint = cluster.RaftFootprint
)

// Raft log backends (server { raft_logstore { backend = ... } }).
const (
	LogStoreWAL    = cluster.LogStoreWAL
	LogStoreBoltDB = cluster.LogStoreBoltDB
)

// clusterHost is the cluster's view of this server.
type clusterHost struct{ s *Server }

var _ cluster.Host = clusterHost{}

func (h clusterHost) Go(fn func(ctx context.Context)) { h.s.goTracked(fn) }
func (h clusterHost) ServerFailed(id string)          { h.s.nackHeldBy(id) }
func (h clusterHost) MembersChanged()                 { h.s.auth.WakeKEKPush() }
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
		PeerBlocked: c.PeerBlocked, Serf: c.Serf, Autopilot: c.Autopilot,
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
