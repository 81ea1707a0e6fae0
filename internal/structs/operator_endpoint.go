package structs

// Requests and responses of the Operator.*, Status.* and System.*
// endpoints.

// GenericRequest is a read with no arguments of its own.
type GenericRequest struct {
	QueryOptions
}

// GenericWriteArgs is a write with no arguments of its own.
type GenericWriteArgs struct {
	WriteRequest
}

// SchedulerConfigurationResponse is the scheduler configuration in force
// (the default until one is written).
type SchedulerConfigurationResponse struct {
	SchedulerConfig *SchedulerConfiguration
	QueryMeta
}

// SchedulerSetConfigArgs writes the scheduler configuration; with CAS
// only if the stored ModifyIndex equals Config.ModifyIndex.
type SchedulerSetConfigArgs struct {
	Config SchedulerConfiguration
	CAS    bool
	WriteRequest
}

// SchedulerSetConfigurationResponse reports whether the write applied.
type SchedulerSetConfigurationResponse struct {
	Updated bool
	WriteMeta
}

// RaftServer is one member of the raft configuration.
type RaftServer struct {
	ID           string
	Node         string
	Address      string
	Leader       bool
	Voter        bool
	RaftProtocol string
}

// RaftConfigurationResponse lists the raft configuration's servers.
type RaftConfigurationResponse struct {
	Servers []*RaftServer
	Index   uint64
}

// StatusLeaderResponse is the leader's RPC (raft) address, "" without one.
type StatusLeaderResponse struct {
	Leader string
}

// StatusPeersResponse lists the raft addresses of the voters.
type StatusPeersResponse struct {
	Peers []string
}

// RaftStatsResponse describes the answering server's raft state.
type RaftStatsResponse struct {
	Leader       string
	IsLeader     bool
	AppliedIndex uint64
	// Term is raft's current term and State its role (Leader, Follower,
	// Candidate): the fault harness checks one leader per term.
	Term  uint64
	State string
	// LastIndex is the last index in raft's log (agent-info's
	// raft.last_log_index).
	LastIndex uint64
}
