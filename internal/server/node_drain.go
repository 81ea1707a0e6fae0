package server

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

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
	index, err := e.srv.raftApply(structs.NodeUpdateDrainRequestType, req)
	if err != nil {
		return nil, err
	}
	return nodeReply(index, nil), nil
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
	index, err := e.srv.raftApply(structs.NodeUpdateEligibilityType, &structs.NodeUpdateEligibilityRequest{
		NodeID: nodeID, Eligibility: eligibility, UpdatedAt: now.Unix(),
		NodeEvent: &structs.NodeEvent{Message: "Node marked " + eligibility, Subsystem: "Cluster", Timestamp: now},
	})
	if err != nil {
		return nil, err
	}
	return nodeReply(index, nil), nil
}
