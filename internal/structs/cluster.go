package structs

import "time"

// RPCRaftByte is the first byte of a raft connection between servers on
// the rpc port, beside RPCMultiplexByte (the internal RPC).
const RPCRaftByte byte = 0x02

// The Cluster.* and Operator raft/autopilot endpoints: membership, raft
// peers and autopilot (see internal/server/cluster_endpoint.go).

// ServerRaftStatsRequest asks a server for its raft progress (autopilot).
type ServerRaftStatsRequest struct{ QueryOptions }

// ServerRaftStats is one server's raft progress.
type ServerRaftStats struct {
	// LastContact is the time since the server heard from the leader
	// (0 on the leader, -1 when it never did).
	LastContact time.Duration
	LastTerm    uint64
	LastIndex   uint64
}

// ClusterMember is one gossip member (GET /v1/agent/members).
type ClusterMember struct {
	Name        string
	Addr        string
	Port        uint16
	Status      string
	Tags        map[string]string
	ProtocolMin uint8
	ProtocolMax uint8
	ProtocolCur uint8
	DelegateMin uint8
	DelegateMax uint8
	DelegateCur uint8
}

// ClusterMembersResponse lists the gossip members a server sees.
type ClusterMembersResponse struct {
	ServerName   string
	ServerRegion string
	ServerDC     string
	Members      []ClusterMember
}

// GossipKeyringRequest is one operation on the gossip keyring of every
// server (PUT /v1/agent/keyring/<Op>): list, install, use or remove Key
// (base64).
type GossipKeyringRequest struct {
	Op  string
	Key string
	WriteRequest
}

// GossipKeyringResponse is Nomad's KeyringResponse: per key, how many
// members hold it; per member, its error; the member count.
type GossipKeyringResponse struct {
	Messages map[string]string
	Keys     map[string]int
	NumNodes int
}

// ClusterJoinRequest joins the gossip pool through these serf addresses.
type ClusterJoinRequest struct {
	Addrs []string
}

// ClusterJoinResponse says how many addresses answered.
type ClusterJoinResponse struct {
	NumJoined int
}

// ForceLeaveRequest marks a failed member as left (it is then removed
// from raft); Prune forgets it at once.
type ForceLeaveRequest struct {
	Node  string
	Prune bool
}

// RaftPeerRequest names a raft server by ID (or address) to remove, or to
// transfer leadership to (both empty: any other voter).
type RaftPeerRequest struct {
	ID      string
	Address string
	WriteRequest
}

// AutopilotConfig is autopilot's configuration (Nomad's fields).
type AutopilotConfig struct {
	CleanupDeadServers      bool
	LastContactThreshold    time.Duration
	MaxTrailingLogs         uint64
	MinQuorum               uint
	ServerStabilizationTime time.Duration
	EnableRedundancyZones   bool
	DisableUpgradeMigration bool
	EnableCustomUpgrades    bool
	CreateIndex             uint64
	ModifyIndex             uint64
}

// Copy returns a copy (the configuration is a state object).
func (c *AutopilotConfig) Copy() *AutopilotConfig { return copyPtr(c) }

// AutopilotSetConfigEntry is the raft entry that replaces the autopilot
// configuration; with CAS only when the stored ModifyIndex equals
// Config.ModifyIndex (0: none stored yet).
type AutopilotSetConfigEntry struct {
	Config AutopilotConfig
	CAS    bool
}

// AutopilotConfigRequest reads the autopilot configuration.
type AutopilotConfigRequest struct {
	QueryOptions
}

// AutopilotConfigResponse is the autopilot configuration.
type AutopilotConfigResponse struct {
	Config AutopilotConfig
	QueryMeta
}

// AutopilotSetConfigRequest replaces the autopilot configuration; with
// CAS only when Config.ModifyIndex matches the current one.
type AutopilotSetConfigRequest struct {
	Config AutopilotConfig
	CAS    bool
	WriteRequest
}

// AutopilotSetConfigResponse says whether the configuration was applied.
type AutopilotSetConfigResponse struct {
	Updated bool
	WriteMeta
}

// ServerHealth is one server's health as autopilot sees it.
type ServerHealth struct {
	ID          string
	Name        string
	Address     string
	SerfStatus  string
	Version     string
	Leader      bool
	LastContact time.Duration
	LastTerm    uint64
	LastIndex   uint64
	Healthy     bool
	Voter       bool
	StableSince time.Time
}

// OperatorHealthRequest reads autopilot's view of the servers.
type OperatorHealthRequest struct {
	QueryOptions
}

// OperatorHealthResponse is the cluster's health.
type OperatorHealthResponse struct {
	Healthy          bool
	FailureTolerance int
	Servers          []ServerHealth
	QueryMeta
}

// ClusterMembersRequest lists the gossip members a server sees.
type ClusterMembersRequest struct{ QueryOptions }

// SnapshotRestoreRequest carries an operator snapshot to the leader (a
// restore sent to a follower).
type SnapshotRestoreRequest struct {
	Data []byte
	WriteRequest
}
