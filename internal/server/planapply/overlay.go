package planapply

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// overlay is a state snapshot with the placements of plans that are
// accepted but not yet committed laid on top: the pipelined applier
// evaluates the next plans on it while those entries are in raft.
//
// It is deliberately one-sided. The overlaid placements count against
// their nodes, but the stops and evictions of those same plans free
// nothing until they are committed (the stopped alloc still counts, and an
// in-place update counts both versions). So a plan that fits on the
// overlay also fits on any state the overlaid entries can leave behind,
// whichever of them commit: if one fails, what was evaluated on top of it
// may be rejected needlessly (the worker refreshes and retries) but can
// never over-commit a node.
type overlay struct {
	base   StateReader
	byNode map[string][]*structs.Allocation // non-terminal placements per node
	byID   map[string]*structs.Allocation   // the latest overlaid version of an alloc
	owners map[string][]*member             // the overlaid plans placing on a node
}

func newOverlay(base StateReader) *overlay {
	return &overlay{base: base, byNode: map[string][]*structs.Allocation{},
		byID: map[string]*structs.Allocation{}, owners: map[string][]*member{}}
}

// add lays an accepted plan's placements on top. The allocs are the
// plan's own (with their job), shared, never modified.
func (o *overlay) add(m *member) {
	for nodeID, allocs := range m.result.NodeAllocation {
		for _, a := range allocs {
			o.byID[a.ID] = a
			if !a.TerminalStatus() {
				o.byNode[nodeID] = append(o.byNode[nodeID], a)
			}
		}
		o.owners[nodeID] = append(o.owners[nodeID], m)
	}
}

// dependencies returns the overlaid plans placing on the nodes where plan
// places: the only nodes whose evaluation reads the overlay.
func (o *overlay) dependencies(plan *structs.Plan) []*member {
	if len(o.owners) == 0 {
		return nil
	}
	var deps []*member
	for nodeID := range plan.NodeAllocation {
		for _, m := range o.owners[nodeID] {
			if !slices.Contains(deps, m) {
				deps = append(deps, m)
			}
		}
	}
	return deps
}

// NodeByID implements StateReader: plans never change nodes.
func (o *overlay) NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error) {
	return o.base.NodeByID(ws, id)
}

// JobByID implements StateReader: plans never stop or purge jobs.
func (o *overlay) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	return o.base.JobByID(ws, namespace, id)
}

// LatestIndex implements StateReader; it is the base snapshot's index, and
// the applier raises a result's RefreshIndex past the overlaid entries
// once they are committed.
func (o *overlay) LatestIndex() uint64 { return o.base.LatestIndex() }

// AllocByID implements StateReader: an overlaid placement wins.
func (o *overlay) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	if a, ok := o.byID[id]; ok {
		return a, nil
	}
	return o.base.AllocByID(ws, id)
}

// AllocsByNodeTerminal implements StateReader. Non-terminal allocs are the
// base's plus the overlaid placements (see the type's comment for why
// overlaid stops do not remove any); terminal ones are the base's.
func (o *overlay) AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error) {
	allocs, err := o.base.AllocsByNodeTerminal(ws, nodeID, terminal)
	extra := o.byNode[nodeID]
	if err != nil || terminal || len(extra) == 0 {
		return allocs, err
	}
	out := make([]*structs.Allocation, 0, len(allocs)+len(extra))
	return append(append(out, allocs...), extra...), nil
}
