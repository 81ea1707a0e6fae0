package planapply

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// usageSource is a StateReader that keeps per-node usage summaries
// (*state.StateSnapshot does: structs.NodeUsage).
type usageSource interface {
	NodeUsage(ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error)
}

// nodeLive returns what checkNodeFits starts from without reading the
// node's allocs: the store's usage summary of the node's live allocs and
// the placements an overlay lays over them (the same allocs, in the same
// order, as AllocsByNodeTerminal(nodeID, false) lists). ok is false when
// snap keeps no summaries.
func nodeLive(snap StateReader, nodeID string) (stored *structs.NodeUsage, extra []*structs.Allocation, ok bool, err error) {
	switch s := snap.(type) {
	case *overlay:
		stored, extra, ok, err = nodeLive(s.base, nodeID)
		if more := s.byNode[nodeID]; len(more) > 0 {
			extra = append(extra[:len(extra):len(extra)], more...)
		}
		return stored, extra, ok, err
	case usageSource:
		stored, err = s.NodeUsage(nil, nodeID)
		return stored, nil, true, err
	}
	return nil, nil, false, nil
}

// fitsBySummary is checkNodeFits' shortcut for the usual node: it reports
// fits only when checkNodeFits would accept, reading the node's summed
// usage instead of adding up its allocs one by one. It answers only when
// nothing on the node can collide (no alloc of the resulting set claims a
// host port, a reserved core or a device instance: the store's summary
// counts those) and the summed resources fit; any other case (a rejection
// included, whose detail names allocs) is left to the full check, so the
// decisions and rejections are the full check's
// (TestFitsBySummary_SameDecisions).
func fitsBySummary(snap StateReader, plan *structs.Plan, node *structs.Node, nodeID string, removed idSet) (bool, error) {
	stored, extra, ok, err := nodeLive(snap, nodeID)
	if err != nil || !ok {
		return false, err
	}
	var used structs.ComparableResources
	if !stored.Empty() {
		if len(stored.Ports) > 0 || len(stored.Cores) > 0 || stored.Devices > 0 {
			return false, nil
		}
		used = stored.Used
		for _, a := range stored.Allocs {
			if removed.has(a.ID) {
				used.Subtract(a.AllocatedResources.Comparable())
			}
		}
	}
	for _, a := range extra {
		if removed.has(a.ID) {
			continue
		}
		if claimsExclusive(a) {
			return false, nil
		}
		used.Add(a.AllocatedResources.Comparable())
	}
	for _, a := range plan.NodeAllocation[nodeID] {
		if a.TerminalStatus() {
			continue
		}
		if claimsExclusive(a) {
			return false, nil
		}
		used.Add(a.AllocatedResources.Comparable())
	}
	fits, _ := node.Comparable().Superset(&used)
	return fits, nil
}

// claimsExclusive reports whether a claims anything that two allocs cannot
// share: a host port (any port of any network or port mapping), a reserved
// core or a device instance.
func claimsExclusive(a *structs.Allocation) bool {
	ar := a.AllocatedResources
	if ar == nil {
		return false
	}
	if len(ar.Shared.Ports) > 0 || networksClaimPorts(ar.Shared.Networks) {
		return true
	}
	for _, t := range ar.Tasks {
		if t == nil {
			continue
		}
		if len(t.ReservedCores) > 0 || networksClaimPorts(t.Networks) {
			return true
		}
		for _, d := range t.Devices {
			if d != nil && len(d.DeviceIDs) > 0 {
				return true
			}
		}
	}
	return false
}

func networksClaimPorts(nets []*structs.NetworkResource) bool {
	for _, n := range nets {
		if n != nil && (len(n.ReservedPorts) > 0 || len(n.DynamicPorts) > 0) {
			return true
		}
	}
	return false
}
