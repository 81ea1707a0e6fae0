package server

import (
	"context"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/drainer"
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

// runDrainer runs the node drainer on the leader: whenever nodes or allocs
// change, or a drain deadline passes, it steps the drainer and writes its
// decisions: allocs to migrate with one node-drain eval per job in one
// entry, and the end of finished drains.
func (s *Server) runDrainer(ctx context.Context) {
	d := drainer.New(s.config.NewID)
	for ctx.Err() == nil {
		ws := memdb.NewWatchSet()
		_, next, err := s.drainerStep(ws, d)
		if err != nil {
			s.log.Error("drainer: read nodes", "error", err)
			return
		}
		s.waitForChange(ctx, ws, next)
	}
}

// drainerStep steps the drainer once over the draining nodes (read under
// ws) and writes its decisions; it returns whether there were any and the
// next drain deadline.
func (s *Server) drainerStep(ws memdb.WatchSet, d *drainer.Drainer) (bool, time.Time, error) {
	nodes, err := s.State().NodesDraining(ws)
	if err != nil {
		return false, time.Time{}, err
	}
	wrote := false
	if len(nodes) > 0 {
		actions := d.Step(s.drainInput(ws, nodes))
		wrote = !actions.Empty()
		s.applyDrainActions(actions)
	}
	return wrote, drainer.NextDeadlineAfter(nodes, s.now()), nil
}

// drainInput reads what the drainer needs, watching the allocs it saw.
func (s *Server) drainInput(ws memdb.WatchSet, nodes []*structs.Node) drainer.Input {
	st := s.State()
	return drainer.Input{
		Now: s.now(), Nodes: nodes,
		AllocsByNode: func(id string) []*structs.Allocation { a, _ := st.AllocsByNode(ws, id); return a },
		AllocsByJob:  func(ns, id string) []*structs.Allocation { a, _ := st.AllocsByJob(ws, ns, id, true); return a },
		Job:          func(ns, id string) *structs.Job { j, _ := st.JobByID(ws, ns, id); return j },
		// Not watched: the drainer's own evals must not wake it again.
		EvalsByJob: func(ns, id string) []*structs.Evaluation { e, _ := st.EvalsByJob(nil, ns, id); return e },
	}
}

func (s *Server) applyDrainActions(a drainer.Actions) {
	if len(a.Migrate) > 0 || len(a.Evals) > 0 {
		if _, err := s.raftApply(structs.AllocUpdateDesiredTransitionType, &structs.AllocUpdateDesiredTransitionRequest{
			Allocs: a.Transitions(), Evals: a.Evals,
		}); err != nil {
			s.log.Warn("drainer: marking allocs failed", "count", len(a.Migrate), "error", err)
		}
	}
	for _, nodeID := range a.Done {
		now := s.now()
		if _, err := s.raftApply(structs.NodeUpdateDrainRequestType, &structs.NodeUpdateDrainRequest{
			NodeID: nodeID, UpdatedAt: now.Unix(),
			NodeEvent: &structs.NodeEvent{Message: "Node drain complete", Subsystem: "Drain", Timestamp: now},
		}); err != nil {
			s.log.Warn("drainer: completing drain failed", "node", nodeID, "error", err)
		}
	}
}
