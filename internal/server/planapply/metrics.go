package planapply

import "github.com/drover-project/drover/internal/structs"

// keepGroupMetricsOfRejected gives a task group whose placements in the
// entry carry no metrics those of its placement elsewhere in the plan. A
// follower's compact plan (structs.Plan.Compact) sends a group's metrics
// on the one placement the entry lists last; when that placement's node
// was rejected, the group's accepted placements would be stored without
// any. The last accepted placement of the group (copied: it belongs to
// the plan) takes them, as if it had been sent with them.
func keepGroupMetricsOfRejected(entry []*structs.Allocation, plan *structs.Plan) {
	bare := map[structs.AllocGroup]int{} // group without metrics -> its last index in entry
	for i, a := range entry {
		bare[structs.GroupOf(a)] = i
	}
	for _, a := range entry {
		if a.Metrics != nil {
			delete(bare, structs.GroupOf(a))
		}
	}
	if len(bare) == 0 {
		return
	}
	found := map[structs.AllocGroup]*structs.AllocMetric{}
	for _, node := range sortedKeys(plan.NodeAllocation) { // the entry's order: the last one wins
		for _, a := range plan.NodeAllocation[node] {
			if _, ok := bare[structs.GroupOf(a)]; ok && a.Metrics != nil {
				found[structs.GroupOf(a)] = a.Metrics
			}
		}
	}
	for g, m := range found {
		i := bare[g]
		c := *entry[i]
		c.Metrics = m
		entry[i] = &c
	}
}
