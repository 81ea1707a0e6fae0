package structs

import "time"

// Wire types of the client <-> server RPC (see package client, RPC). They
// live here so the client and the server share them without importing
// each other.

// NodeRegisterArgs registers (or re-registers) a client node.
type NodeRegisterArgs struct {
	Node *Node
	// NodeRegistrationToken is the cluster's node credential (client {
	// node_registration_token }); with ACLs on, an ACL token granting
	// node write is accepted instead.
	NodeRegistrationToken string
	WriteRequest
}

// NodeHeartbeatArgs reports a node alive (Status ready), or another status.
type NodeHeartbeatArgs struct {
	NodeID   string
	SecretID string
	Status   string
	WriteRequest
}

// NodeUpdateResponse answers register and heartbeat calls.
type NodeUpdateResponse struct {
	// HeartbeatTTL is how long the server waits for the next heartbeat
	// before it marks the node down (plus a grace period).
	HeartbeatTTL time.Duration
	EvalIDs      []string
	Index        uint64
	// LeaderRPCAddr and Servers let the client fail over between servers.
	LeaderRPCAddr string
	Servers       []string
}

// NodeAllocsArgs asks for a node's allocations, blocking until the index
// passes MinQueryIndex or MaxQueryTime passes (QueryOptions).
type NodeAllocsArgs struct {
	NodeID   string
	SecretID string
	QueryOptions
}

// NodeAllocsResponse carries the node's allocations (with their jobs):
// the answer of Node.GetClientAllocs, the full form clients before
// Node.GetClientAllocIndexes pulled (every alloc of the node with its job
// on every change).
type NodeAllocsResponse struct {
	Allocs []*Allocation
	Index  uint64
}

// NodeClientAllocsResponse answers Node.GetClientAllocIndexes (Nomad's
// Node.GetClientAllocs reply): the AllocModifyIndex of each alloc the
// servers still hold for the node, keyed by alloc ID. The client fetches
// only the allocs whose index moved (Alloc.GetAllocs) and drops those no
// longer listed.
type NodeClientAllocsResponse struct {
	Allocs map[string]uint64
	Index  uint64
}

// AllocsGetArgs asks for some of a node's allocs by ID (Alloc.GetAllocs):
// a client fetching those its pull showed changed. The node authenticates
// with its SecretID and may name only its own allocs. With MinQueryIndex
// the answer waits until the server's allocs have passed it.
type AllocsGetArgs struct {
	NodeID   string
	SecretID string
	AllocIDs []string
	QueryOptions
}

// PrevAllocMigrationArgs asks, for AllocID (an alloc of the calling
// node), about the alloc it replaces on another node: a blocking query on
// the allocs past MinQueryIndex.
type PrevAllocMigrationArgs struct {
	NodeID   string
	SecretID string
	AllocID  string
	QueryOptions
}

// PrevAllocMigrationResponse says where the previous alloc ran and
// whether its data can be fetched yet. Gone: the previous alloc no
// longer exists (collected), nothing to fetch. Terminal: it stopped (or
// its node is lost), so its data no longer changes. NodeDown: its node is
// down or gone, so nothing can be fetched. HTTPAddr and TLSEnabled are
// the previous node's agent; MigrateToken authorizes the snapshot there
// (MigrateToken).
type PrevAllocMigrationResponse struct {
	PrevAllocID  string
	PrevNodeID   string
	Gone         bool
	Terminal     bool
	NodeDown     bool
	HTTPAddr     string
	TLSEnabled   bool
	MigrateToken string
	QueryMeta
}

// AllocsGetResponse holds the allocs asked for (with their jobs) that the
// servers still hold; a garbage collected one is left out.
type AllocsGetResponse struct {
	Allocs []*Allocation
	QueryMeta
}

// AllocClientUpdateArgs reports client-side alloc state in one batch: the
// client status, description, task states and deployment health of each.
type AllocClientUpdateArgs struct {
	NodeID   string
	SecretID string
	Allocs   []*Allocation
	WriteRequest
}

// GenericResponse answers calls that only report success and an index.
type GenericResponse struct {
	Index uint64
}

// RPCMultiplexByte is the first byte of a client's RPC connection: the
// rest is a yamux session whose streams each carry one net/rpc call in
// msgpack. Other first bytes are reserved (raft between servers, later).
const RPCMultiplexByte byte = 0x01

// RPCTLSByte (Nomad's) starts a TLS handshake; the protocol byte
// (RPCMultiplexByte) then follows inside TLS.
const RPCTLSByte byte = 0x04

// RPCStreamHTTPByte is the first byte of a yamux stream (inside an
// RPCMultiplexByte session) that carries HTTP/1.1 instead of net/rpc
// calls: a client-only agent forwards the cluster API's requests to its
// server this way, over the connection it already holds. A net/rpc
// stream starts with a msgpack map or array, never this byte ('H').
const RPCStreamHTTPByte byte = 0x48

// RPC method names.
const (
	RPCNodeRegister        = "Node.Register"
	RPCNodeUpdateStatus    = "Node.UpdateStatus"
	RPCNodeGetClientAllocs = "Node.GetClientAllocs"
	// RPCNodeGetClientAllocIndexes is the pull of current clients: alloc
	// IDs and indexes only (NodeClientAllocsResponse).
	RPCNodeGetClientAllocIndexes = "Node.GetClientAllocIndexes"
	RPCAllocGetAllocs            = "Alloc.GetAllocs"
	// RPCNodePrevAllocMigration is a client's question about the
	// previous alloc whose ephemeral_disk data it migrates from another
	// node (PrevAllocMigrationArgs).
	RPCNodePrevAllocMigration = "Node.PrevAllocMigration"
	RPCNodeUpdateAlloc        = "Node.UpdateAlloc"
	RPCACLResolveToken        = "ACL.ResolveToken"
)
