package planapply

import (
	"github.com/drover-project/drover/internal/structs"
)

// evaluateNode decides whether the plan's part for one node fits on snap;
// nil means it does.
func evaluateNode(snap StateReader, plan *structs.Plan, nodeID string) (*Rejection, error) {
	placements := plan.NodeAllocation[nodeID]
	if len(placements) == 0 {
		// Stops and evictions only free resources, and must go through
		// even on down or deleted nodes (that is how allocs become lost).
		return nil, nil
	}
	node, err := snap.NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	rej, err := checkNodeAccepts(snap, node, nodeID, placements)
	if rej == nil && err == nil {
		rej, err = checkNodeFits(snap, plan, node, nodeID)
	}
	if rej != nil {
		rej.NodeID = nodeID
	}
	return rej, err
}

// checkNodeAccepts rejects placements on a node that takes no new work.
//
// A node that is not ready, draining or ineligible still accepts in-place
// updates of allocs already on it: they add no new work, and they are how
// the scheduler records changes to allocs that stay there (a new job
// version on a draining node whose allocs have not migrated yet, the
// unknown status on a disconnected node, a follow-up eval ID on a failed
// alloc). Their resources are still checked by checkNodeFits.
func checkNodeAccepts(snap StateReader, node *structs.Node, nodeID string, placements []*structs.Allocation) (*Rejection, error) {
	if node == nil {
		return &Rejection{Reason: ReasonNodeMissing}, nil
	}
	if node.Ready() {
		return nil, nil
	}
	updatesOnly, err := allAlreadyOnNode(snap, nodeID, placements)
	if err != nil || updatesOnly {
		return nil, err
	}
	return &Rejection{Reason: notReadyReason(node)}, nil
}

// notReadyReason names why a node that is not Ready takes no new work.
func notReadyReason(node *structs.Node) string {
	switch {
	case node.Status != structs.NodeStatusReady:
		return ReasonNodeNotReady
	case node.DrainStrategy != nil:
		return ReasonNodeDraining
	}
	return ReasonNodeIneligible
}

// allAlreadyOnNode reports whether every placement updates an alloc the
// snapshot already has on that node.
func allAlreadyOnNode(snap StateReader, nodeID string, placements []*structs.Allocation) (bool, error) {
	for _, p := range placements {
		existing, err := snap.AllocByID(nil, p.ID)
		if err != nil {
			return false, err
		}
		if existing == nil || existing.NodeID != nodeID {
			return false, nil
		}
	}
	return true, nil
}

// checkNodeFits checks the node's resulting allocs against its resources
// and for ports or cores claimed twice. The resulting set is the node's
// non-terminal allocs, minus those the plan stops, preempts or replaces
// (in-place updates carry the same ID), plus the plan's placements.
//
// The usual node (nothing exclusive claimed, room to spare) is accepted
// from the store's usage summary (fitsBySummary); the rest is decided by
// adding up the allocs.
func checkNodeFits(snap StateReader, plan *structs.Plan, node *structs.Node, nodeID string) (*Rejection, error) {
	removed := newIDSet(plan.NodeUpdate[nodeID], plan.NodePreemptions[nodeID], plan.NodeAllocation[nodeID])
	if fits, err := fitsBySummary(snap, plan, node, nodeID, removed); fits || err != nil {
		return nil, err
	}
	return checkNodeFitsByAllocs(snap, plan, node, nodeID, removed)
}

// checkNodeFitsByAllocs is checkNodeFits adding up the node's allocs.
func checkNodeFitsByAllocs(snap StateReader, plan *structs.Plan, node *structs.Node, nodeID string, removed idSet) (*Rejection, error) {
	existing, err := snap.AllocsByNodeTerminal(nil, nodeID, false)
	if err != nil {
		return nil, err
	}
	u := newUsage(node)
	for _, a := range existing {
		if !removed.has(a.ID) {
			u.add(a)
		}
	}
	for _, a := range plan.NodeAllocation[nodeID] {
		if !a.TerminalStatus() {
			u.add(a)
		}
	}
	return u.verdict(node), nil
}
