package server

import "github.com/drover-project/drover/internal/structs"

// setNodeStatus changes a node's status (ready, down, disconnected). A real
// change writes the node-update evals in the same raft entry; the
// schedulers then mark allocs on a down node lost and replace them.
func (s *Server) setNodeStatus(nodeID, status string) (*structs.NodeWriteResponse, error) {
	if !structs.ValidNodeStatus(status) {
		return nil, BadRequest("Status: %q is not a node status", status)
	}
	node, err := s.State().NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	var evals []*structs.Evaluation
	if node.Status != status {
		changed := node.Copy()
		changed.Status = status
		if evals, err = s.nodeUpdateEvals(changed, statusChangeTrigger(node.Status, status)); err != nil {
			return nil, err
		}
	}
	if status == structs.NodeStatusDown {
		s.leader.Heartbeats().Clear(nodeID)
	}
	now := s.now()
	evals, covered := s.leader.CoalesceNodeEvals(evals)
	index, err := s.raftApply(structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{
		NodeID: nodeID, Status: status, Evals: evals, UpdatedAt: now.Unix(),
		NodeEvent: &structs.NodeEvent{Message: "Node status changed to " + status, Subsystem: "Cluster", Timestamp: now},
	})
	if err != nil {
		return nil, err
	}
	late, err := s.leader.WriteUncovered(covered)
	if err != nil {
		return nil, err
	}
	return nodeReply(index, append(evals, late...)), nil
}
