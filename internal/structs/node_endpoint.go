package structs

import "time"

// Requests and responses of the Node.* endpoints the HTTP API uses. The
// client's own calls (Node.Register, Node.UpdateStatus,
// Node.GetClientAllocs, Node.UpdateAlloc) are in client_rpc.go.

// NodeListRequest lists nodes.
type NodeListRequest struct {
	QueryOptions
}

// NodeListResponse is one page of nodes.
type NodeListResponse struct {
	Nodes []*Node
	QueryMeta
}

// NodeSpecificRequest addresses one node.
type NodeSpecificRequest struct {
	NodeID string
	QueryOptions
}

// SingleNodeResponse is one node, nil when absent.
type SingleNodeResponse struct {
	Node *Node
	QueryMeta
}

// NodeAllocationsResponse lists the allocations on a node.
type NodeAllocationsResponse struct {
	Allocations []*Allocation
	QueryMeta
}

// NodeUpdateDrainArgs starts, changes (DrainStrategy set) or ends (nil) a
// node's drain; MarkEligible makes an undrained node eligible again.
type NodeUpdateDrainArgs struct {
	NodeID        string
	DrainStrategy *DrainSpec
	MarkEligible  bool
	WriteRequest
}

// DrainSpec is what an operator asks of a drain: a deadline (negative:
// force now, 0: none) and whether system jobs stay.
type DrainSpec struct {
	Deadline         time.Duration
	IgnoreSystemJobs bool
}

// NodeUpdateEligibilityArgs marks a node eligible or ineligible.
type NodeUpdateEligibilityArgs struct {
	NodeID      string
	Eligibility string
	WriteRequest
}

// NodeWriteResponse tells the operator what a node write wrote.
type NodeWriteResponse struct {
	EvalIDs         []string
	EvalCreateIndex uint64
	NodeModifyIndex uint64
	WriteMeta
}

// NodeEvaluateArgs asks for fresh node-update evals of every job that has
// allocs on the node, plus the system jobs that may run on it.
type NodeEvaluateArgs struct {
	NodeID string
	WriteRequest
}
