package server

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// NodeEndpoint is the Node.* endpoint family: how clients (and simulated
// nodes) join the cluster and report their status.
type NodeEndpoint struct{ srv *Server }

// The Node.* reads.

// List answers one page of nodes.
func (e *NodeEndpoint) List(ctx context.Context, args *structs.NodeListRequest) (*structs.NodeListResponse, error) {
	reply := &structs.NodeListResponse{}
	match, err := stubFilter(&args.QueryOptions, nodeStub)
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableNodes, &reply.Nodes, match, (*state.StateStore).NodesPage)
}

// GetNode answers one node (nil when absent).
func (e *NodeEndpoint) GetNode(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.SingleNodeResponse, error) {
	reply := &structs.SingleNodeResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableNodes, &reply.Node, byKey((*state.StateStore).NodeByID, args.NodeID),
		func(n *structs.Node) uint64 { return n.ModifyIndex })
}

// GetAllocs answers the allocations on a node.
func (e *NodeEndpoint) GetAllocs(ctx context.Context, args *structs.NodeSpecificRequest) (*structs.NodeAllocationsResponse, error) {
	reply := &structs.NodeAllocationsResponse{}
	err := readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, byKey((*state.StateStore).AllocsByNode, args.NodeID))
	if err == nil {
		reply.Allocations, err = e.srv.auth.VisibleAllocs(args, reply.Allocations)
	}
	return reply, err
}

// UpdateDrain starts, changes or cancels a node's drain. A drain makes the
// node ineligible; the leader's drainer then migrates its allocs. Without
// a DrainStrategy the drain ends and MarkEligible makes the node eligible
// again.
func (e *NodeEndpoint) UpdateDrain(ctx context.Context, args *structs.NodeUpdateDrainArgs) (*structs.NodeWriteResponse, error) {
	nodeID := args.NodeID
	node, err := e.srv.State().NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	now := e.srv.now()
	req := &structs.NodeUpdateDrainRequest{NodeID: nodeID, MarkEligible: args.MarkEligible, UpdatedAt: now.Unix()}
	msg := "Node drain strategy cleared"
	if spec := args.DrainStrategy; spec != nil {
		req.DrainStrategy = newDrainStrategy(spec.Deadline, spec.IgnoreSystemJobs, now)
		msg = "Node drain strategy set"
	}
	req.NodeEvent = &structs.NodeEvent{Message: msg, Subsystem: "Drain", Timestamp: now}
	if args.DrainStrategy == nil && args.MarkEligible {
		if req.Evals, err = e.eligibleAgainEvals(node); err != nil {
			return nil, err
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NodeUpdateDrainRequestType, req)
	if err != nil {
		return nil, err
	}
	return nodeReply(index, req.Evals), nil
}

// newDrainStrategy fixes the force deadline now, before raft: a negative
// deadline forces at once, zero means no deadline.
func newDrainStrategy(deadline time.Duration, ignoreSystemJobs bool, now time.Time) *structs.DrainStrategy {
	d := &structs.DrainStrategy{Deadline: deadline, IgnoreSystemJobs: ignoreSystemJobs, StartedAt: now}
	if deadline > 0 {
		d.ForceDeadline = now.Add(deadline)
	}
	return d
}

// UpdateEligibility marks a node eligible or ineligible for new work.
func (e *NodeEndpoint) UpdateEligibility(ctx context.Context, args *structs.NodeUpdateEligibilityArgs) (*structs.NodeWriteResponse, error) {
	nodeID, eligibility := args.NodeID, args.Eligibility
	if eligibility != structs.NodeSchedulingEligible && eligibility != structs.NodeSchedulingIneligible {
		return nil, BadRequest("Eligibility: %q is neither %q nor %q", eligibility, structs.NodeSchedulingEligible, structs.NodeSchedulingIneligible)
	}
	node, err := e.srv.State().NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	if eligibility == structs.NodeSchedulingEligible && node.DrainStrategy != nil {
		return nil, BadRequest("Eligibility: node %s is draining; cancel the drain to make it eligible", nodeID)
	}
	now := e.srv.now()
	req := &structs.NodeUpdateEligibilityRequest{
		NodeID: nodeID, Eligibility: eligibility, UpdatedAt: now.Unix(),
		NodeEvent: &structs.NodeEvent{Message: "Node marked " + eligibility, Subsystem: "Cluster", Timestamp: now},
	}
	if eligibility == structs.NodeSchedulingEligible {
		if req.Evals, err = e.eligibleAgainEvals(node); err != nil {
			return nil, err
		}
	}
	index, err := e.srv.raftApply(ctx, structs.NodeUpdateEligibilityType, req)
	if err != nil {
		return nil, err
	}
	return nodeReply(index, req.Evals), nil
}

// eligibleAgainEvals are the node-update evals of an ineligible node made
// eligible (Nomad writes them too): a system job registered meanwhile
// skipped the node, and nothing else would look at it again. They go in
// the eligibility change's own entry. A node that is not ready gets none:
// it gets its evals when it becomes ready.
func (e *NodeEndpoint) eligibleAgainEvals(node *structs.Node) ([]*structs.Evaluation, error) {
	if node.SchedulingEligibility != structs.NodeSchedulingIneligible || node.Status != structs.NodeStatusReady {
		return nil, nil
	}
	eligible := node.Copy()
	eligible.SchedulingEligibility = structs.NodeSchedulingEligible
	return e.srv.nodeUpdateEvals(eligible, structs.EvalTriggerNodeUpdate)
}

// Evaluate forces the schedulers to look at a node again (`node eval`):
// one node-update eval per job with live allocs on it and per system job
// that may run there, written in one raft entry. Unlike the evals of a
// node change these are not coalesced with pending ones: the operator
// asked for a new look.
func (e *NodeEndpoint) Evaluate(ctx context.Context, args *structs.NodeEvaluateArgs) (*structs.NodeWriteResponse, error) {
	reply := &structs.NodeWriteResponse{}
	node, err := e.srv.State().NodeByID(nil, args.NodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", args.NodeID, structs.ErrNodeNotFound)
	}
	evals, err := e.srv.nodeUpdateEvals(node, structs.EvalTriggerNodeUpdate)
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		reply.NodeModifyIndex = node.ModifyIndex
		reply.Index = e.srv.State().LatestIndex()
		return reply, nil
	}
	index, err := e.srv.raftApply(ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	if err != nil {
		return nil, err
	}
	reply = nodeReply(index, evals)
	reply.NodeModifyIndex = node.ModifyIndex
	return reply, nil
}
