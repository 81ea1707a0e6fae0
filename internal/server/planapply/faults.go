package planapply

import (
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// RejectHook lets tests and the simulator inject the race the applier
// exists for (a node filled between a scheduler's snapshot and the apply):
// it returns the nodes whose part of the plan must be rejected.
type RejectHook func(plan *structs.Plan) []string

// injectRejections drops the hooked nodes from the result, as if they had
// not fit, and asks the scheduler to refresh to at least snapIndex.
func (a *Applier) injectRejections(plan *structs.Plan, res *structs.PlanResult, snapIndex uint64) {
	if a.rejectHook == nil {
		return
	}
	for _, node := range a.rejectHook(plan) {
		_, placing := res.NodeAllocation[node]
		_, stopping := res.NodeUpdate[node]
		if !placing && !stopping {
			continue
		}
		delete(res.NodeAllocation, node)
		delete(res.NodeUpdate, node)
		delete(res.NodePreemptions, node)
		if !slices.Contains(res.RejectedNodes, node) {
			res.RejectedNodes = append(res.RejectedNodes, node)
		}
		res.RefreshIndex = max(res.RefreshIndex, snapIndex, 1)
	}
}
