package planapply

import "github.com/drover-project/drover/internal/structs"

// keepLastGroupMetrics leaves placement metrics only on the last alloc of
// each task group in a plan's entry. The state store keeps one copy of the
// group's last metrics for all of them (state/alloc_compact.go), so the
// others would only make the raft entry (and the log) bigger: the metrics
// were most of a placed alloc's bytes. Allocs are shallow-copied because
// they belong to the plan.
func keepLastGroupMetrics(allocs []*structs.Allocation) {
	type group struct{ namespace, job, name string }
	seen := map[group]bool{}
	for i := len(allocs) - 1; i >= 0; i-- {
		a := allocs[i]
		if a.Metrics == nil {
			continue
		}
		g := group{a.Namespace, a.JobID, a.TaskGroup}
		if !seen[g] {
			seen[g] = true
			continue
		}
		c := *a
		c.Metrics = nil
		allocs[i] = &c
	}
}
