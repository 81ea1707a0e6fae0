package planapply

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// StateReader is the part of a state snapshot plan evaluation reads;
// *state.StateSnapshot satisfies it.
type StateReader interface {
	NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error)
	AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error)
	AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error)
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
	LatestIndex() uint64
}

// Rejection says why one node's part of a plan was refused.
type Rejection struct {
	NodeID    string
	Reason    string // a Reason constant
	Dimension string // with ReasonExhausted: a Dimension constant
	Detail    string // for logs, e.g. the colliding port
}

// Outcome is what Evaluate decided: the result to commit and answer with,
// and why each rejected node was rejected.
type Outcome struct {
	Result     *structs.PlanResult
	Rejections []Rejection
}

// Evaluate decides, node by node, which parts of plan still fit on snap.
//
// A node's part (its placements, stops and preemptions) is accepted or
// rejected as a whole: the scheduler may have stopped an alloc there only
// to make room for a placement there, so keeping one without the other is
// never what it asked for. Nodes are visited in ID order, so the outcome
// (and the order of RejectedNodes) is deterministic.
//
// An all-at-once plan stops at the first rejected node and commits
// nothing; RejectedNodes then names only the node(s) that did not fit.
//
// When anything was rejected, RefreshIndex is the snapshot's latest index:
// the scheduler saw an older state, and a snapshot at this index includes
// every write that made the node not fit.
//
// The plan's Deployment and DeploymentUpdates are kept if at least one
// node was accepted, or if the plan changes no node at all (a pure
// deployment update). A plan whose every node was rejected made no
// progress, so creating or advancing its deployment would record a step
// that never happened; the retry will propose it again.
func Evaluate(snap StateReader, plan *structs.Plan) (*Outcome, error) {
	gone, err := planJobGone(snap, plan)
	if err != nil {
		return nil, err
	}
	if gone {
		return evaluateGoneJob(snap, plan)
	}
	nodes := touchedNodes(plan)
	out := &Outcome{Result: newResult(len(nodes))}
	accepted := 0
	for _, nodeID := range nodes {
		rej, err := evaluateNode(snap, plan, nodeID)
		if err != nil {
			return nil, err
		}
		if rej != nil {
			out.Rejections = append(out.Rejections, *rej)
			if plan.AllAtOnce {
				break
			}
			continue
		}
		acceptNode(out.Result, plan, nodeID)
		accepted++
	}
	if len(out.Rejections) > 0 {
		markRejected(snap, plan, out, &accepted)
	}
	if accepted > 0 || len(nodes) == 0 {
		out.Result.Deployment = plan.Deployment
		out.Result.DeploymentUpdates = plan.DeploymentUpdates
	}
	return out, nil
}

// evaluateGoneJob keeps only the stops and deployment status updates of
// a plan whose job was purged or stopped since it was computed: every
// node with placements is rejected, so nothing of the job is placed or
// written back and the scheduler retries on a snapshot that shows why.
func evaluateGoneJob(snap StateReader, plan *structs.Plan) (*Outcome, error) {
	stopsOnly := &structs.Plan{NodeUpdate: plan.NodeUpdate}
	nodes := touchedNodes(stopsOnly)
	out := &Outcome{Result: newResult(len(nodes))}
	for _, nodeID := range nodes {
		acceptNode(out.Result, stopsOnly, nodeID)
	}
	for _, nodeID := range sortedKeys(plan.NodeAllocation) { // nodes with placements
		out.Rejections = append(out.Rejections, Rejection{NodeID: nodeID, Reason: ReasonJobGone})
	}
	if len(out.Rejections) > 0 {
		accepted := len(nodes)
		markRejected(snap, stopsOnly, out, &accepted)
	}
	out.Result.DeploymentUpdates = plan.DeploymentUpdates
	return out, nil
}

// planJobGone reports whether the plan's job was purged or stopped since
// the plan was computed (structs.PlanJobGone).
func planJobGone(snap StateReader, plan *structs.Plan) (bool, error) {
	if plan.Job == nil {
		return false, nil
	}
	stored, err := snap.JobByID(nil, plan.Job.Namespace, plan.Job.ID)
	if err != nil {
		return false, err
	}
	return structs.PlanJobGone(stored, plan.Job), nil
}

// markRejected records the rejections in the result; for an all-at-once
// plan it also withdraws whatever was accepted before the failure.
func markRejected(snap StateReader, plan *structs.Plan, out *Outcome, accepted *int) {
	res := out.Result
	res.RefreshIndex = snap.LatestIndex()
	for _, r := range out.Rejections {
		res.RejectedNodes = append(res.RejectedNodes, r.NodeID)
	}
	if plan.AllAtOnce {
		clear(res.NodeAllocation)
		clear(res.NodeUpdate)
		clear(res.NodePreemptions)
		*accepted = 0
	}
}

// touchedNodes returns, sorted, every node the plan changes.
func touchedNodes(plan *structs.Plan) []string {
	n := len(plan.NodeAllocation) + len(plan.NodeUpdate) + len(plan.NodePreemptions)
	nodes := make([]string, 0, n)
	for _, m := range []map[string][]*structs.Allocation{plan.NodeAllocation, plan.NodeUpdate, plan.NodePreemptions} {
		for id := range m {
			nodes = append(nodes, id)
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

func newResult(nodes int) *structs.PlanResult {
	return &structs.PlanResult{
		NodeAllocation:  make(map[string][]*structs.Allocation, nodes),
		NodeUpdate:      make(map[string][]*structs.Allocation),
		NodePreemptions: make(map[string][]*structs.Allocation),
	}
}

// acceptNode moves the node's part of the plan into the result. The
// slices are shared, not copied: neither the plan nor the result is
// modified after evaluation.
func acceptNode(res *structs.PlanResult, plan *structs.Plan, nodeID string) {
	if a := plan.NodeAllocation[nodeID]; len(a) > 0 {
		res.NodeAllocation[nodeID] = a
	}
	if u := plan.NodeUpdate[nodeID]; len(u) > 0 {
		res.NodeUpdate[nodeID] = u
	}
	if p := plan.NodePreemptions[nodeID]; len(p) > 0 {
		res.NodePreemptions[nodeID] = p
	}
}
