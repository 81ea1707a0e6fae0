package leader

import (
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/drainer"
	"github.com/drover-project/drover/internal/structs"
)

// The node drainer runs on the leader (the "drainer" duty): whenever
// nodes or allocs change, or a drain deadline passes, it steps the
// drainer and writes its decisions: allocs to migrate with one node-drain
// eval per job in one entry, and the end of finished drains.

// drainerStep steps the drainer once over the draining nodes (read under
// ws) and writes its decisions; it returns whether there were any and the
// next drain deadline.
func (l *Leader) drainerStep(ws memdb.WatchSet, d *drainer.Drainer) (bool, time.Time, error) {
	nodes, err := l.srv.State().NodesDraining(ws)
	if err != nil {
		return false, time.Time{}, err
	}
	wrote := false
	if len(nodes) > 0 {
		actions := d.Step(l.drainInput(ws, nodes))
		wrote = !actions.Empty()
		l.applyDrainActions(actions)
	}
	return wrote, drainer.NextDeadlineAfter(nodes, l.now()), nil
}

// drainInput reads what the drainer needs, watching the allocs it saw.
func (l *Leader) drainInput(ws memdb.WatchSet, nodes []*structs.Node) drainer.Input {
	st := l.srv.State()
	return drainer.Input{
		Now: l.now(), Nodes: nodes,
		AllocsByNode: func(id string) []*structs.Allocation { a, _ := st.AllocsByNode(ws, id); return a },
		AllocsByJob:  func(ns, id string) []*structs.Allocation { a, _ := st.AllocsByJob(ws, ns, id, true); return a },
		Job:          func(ns, id string) *structs.Job { j, _ := st.JobByID(ws, ns, id); return j },
		// Not watched: the drainer's own evals must not wake it again.
		EvalsByJob: func(ns, id string) []*structs.Evaluation { e, _ := st.EvalsByJob(nil, ns, id); return e },
	}
}

func (l *Leader) applyDrainActions(a drainer.Actions) {
	if len(a.Migrate) > 0 || len(a.Evals) > 0 {
		if _, err := l.srv.Apply(structs.AllocUpdateDesiredTransitionType, &structs.AllocUpdateDesiredTransitionRequest{
			Allocs: a.Transitions(), Evals: a.Evals,
		}); err != nil {
			l.log.Warn("drainer: marking allocs failed", "count", len(a.Migrate), "error", err)
		}
	}
	for _, nodeID := range a.Done {
		now := l.now()
		if _, err := l.srv.Apply(structs.NodeUpdateDrainRequestType, &structs.NodeUpdateDrainRequest{
			NodeID: nodeID, UpdatedAt: now.Unix(),
			NodeEvent: &structs.NodeEvent{Message: "Node drain complete", Subsystem: "Drain", Timestamp: now},
		}); err != nil {
			l.log.Warn("drainer: completing drain failed", "node", nodeID, "error", err)
		}
	}
}
