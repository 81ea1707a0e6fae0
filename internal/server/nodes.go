package server

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// upsertNode adds a node or re-registers it (fingerprint change). A node
// that becomes ready, or changes while ready, gets its node-update evals in
// the same raft entry: one per job with allocs on it plus one per system or
// sysbatch job whose datacenters and pool include it.
func (e *NodeEndpoint) upsertNode(ctx context.Context, node *structs.Node) (*structs.NodeWriteResponse, error) {
	if node == nil {
		return nil, BadRequest("Node: missing node")
	}
	n := node.Copy()
	n.Canonicalize()
	if err := n.Validate(); err != nil {
		return nil, BadRequest("invalid node: %w", err)
	}
	existing, err := e.srv.State().NodeByID(nil, n.ID)
	if err != nil {
		return nil, err
	}
	if existing != nil && existing.SecretID != "" && existing.SecretID != n.SecretID {
		return nil, BadRequest("SecretID: does not match the registered node %s", n.ID)
	}
	n.ComputedClass = scheduler.ComputeClass(n)
	now := e.srv.now()
	n.StatusUpdatedAt = now.Unix()
	if existing == nil {
		// A node's history starts with its registration, as in Nomad
		// (`node status <id>` lists it under Node Events).
		n.Events = append(n.Events, &structs.NodeEvent{Message: "Node registered", Subsystem: "Cluster", Timestamp: now})
	}
	var evals []*structs.Evaluation
	if n.Status == structs.NodeStatusReady && (existing == nil || nodeChanged(existing, n)) {
		if evals, err = e.srv.nodeUpdateEvals(n, structs.EvalTriggerNodeUpdate); err != nil {
			return nil, err
		}
	}
	evals, covered := e.srv.leader.CoalesceNodeEvals(evals)
	index, err := e.srv.raftApply(ctx, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: n, Evals: evals, UpdatedAt: now.Unix()})
	if err != nil {
		return nil, err
	}
	late, err := e.srv.leader.WriteUncovered(covered)
	if err != nil {
		return nil, err
	}
	return nodeReply(index, append(evals, late...)), nil
}

// nodeChanged reports whether a re-registration changes what schedulers see.
func nodeChanged(old, n *structs.Node) bool {
	return old.Status != n.Status || old.ComputedClass != n.ComputedClass ||
		old.SchedulingEligibility != n.SchedulingEligibility || old.Datacenter != n.Datacenter || old.NodePool != n.NodePool
}

// setStatus changes a node's status (Server.setNodeStatus, nodes.go).
func (e *NodeEndpoint) setStatus(nodeID, status string) (*structs.NodeWriteResponse, error) {
	return e.srv.setNodeStatus(nodeID, status)
}

// statusChangeTrigger names the evals of a status change: a disconnected
// node coming back is a reconnect; every other change is a node-update.
func statusChangeTrigger(from, to string) string {
	if from == structs.NodeStatusDisconnected && to == structs.NodeStatusReady {
		return structs.EvalTriggerReconnect
	}
	return structs.EvalTriggerNodeUpdate
}

func nodeReply(index uint64, evals []*structs.Evaluation) *structs.NodeWriteResponse {
	r := &structs.NodeWriteResponse{NodeModifyIndex: index, WriteMeta: structs.WriteMeta{Index: index}}
	for _, ev := range evals {
		r.EvalIDs = append(r.EvalIDs, ev.ID)
	}
	if len(evals) > 0 {
		r.EvalCreateIndex = index
	}
	return r
}

// nodeUpdateEvals creates the node-update evals for a node change: one per
// job with a non-terminal alloc on the node, plus one per system/sysbatch
// job that may run on it.
func (s *Server) nodeUpdateEvals(node *structs.Node, trigger string) ([]*structs.Evaluation, error) {
	jobs := map[structs.NamespacedID]*structs.Job{}
	allocs, err := s.State().AllocsByNode(nil, node.ID)
	if err != nil {
		return nil, err
	}
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		job, err := s.State().JobByID(nil, a.Namespace, a.JobID)
		if err != nil {
			return nil, err
		}
		if job != nil {
			jobs[job.NamespacedID()] = job
		}
	}
	for _, t := range []string{structs.JobTypeSystem, structs.JobTypeSysBatch} {
		sys, err := s.State().JobsByType(nil, t)
		if err != nil {
			return nil, err
		}
		for _, job := range sys {
			if !job.Stop && jobMayRunOn(job, node) {
				jobs[job.NamespacedID()] = job
			}
		}
	}
	// Create in a fixed order so IDs are assigned deterministically.
	ordered := slices.SortedFunc(maps.Values(jobs), func(a, b *structs.Job) int {
		return strings.Compare(a.NamespacedID().String(), b.NamespacedID().String())
	})
	evals := make([]*structs.Evaluation, 0, len(ordered))
	for _, job := range ordered {
		ev := s.newJobEval(job, trigger)
		ev.NodeID = node.ID
		evals = append(evals, ev)
	}
	return evals, nil
}

// jobMayRunOn reports whether the node is in one of the job's datacenters
// (glob patterns) and in its node pool.
func jobMayRunOn(job *structs.Job, node *structs.Node) bool {
	if job.NodePool != structs.AllNodePools && job.NodePool != node.NodePool {
		return false
	}
	for _, dc := range job.Datacenters {
		if ok, _ := path.Match(dc, node.Datacenter); ok {
			return true
		}
	}
	return false
}

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
	index, err := s.raftApply(s.ctx, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{
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
