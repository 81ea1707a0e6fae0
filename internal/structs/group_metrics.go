package structs

// AllocGroup names the task group an alloc belongs to.
type AllocGroup struct{ Namespace, JobID, TaskGroup string }

// GroupOf is a's task group.
func GroupOf(a *Allocation) AllocGroup { return AllocGroup{a.Namespace, a.JobID, a.TaskGroup} }

// KeepLastGroupMetrics leaves placement metrics only on the last alloc of
// each task group in allocs. The state store keeps one copy of the
// group's last metrics for all of them (state/alloc_compact.go), so the
// others would only make a plan's raft entry (and the log, and a
// follower's Plan.Submit) bigger: the metrics are about half of a placed
// alloc's bytes. Allocs are shallow-copied, since they belong to a plan.
func KeepLastGroupMetrics(allocs []*Allocation) {
	seen := map[AllocGroup]bool{}
	for i := len(allocs) - 1; i >= 0; i-- {
		a := allocs[i]
		if a.Metrics == nil {
			continue
		}
		g := GroupOf(a)
		if !seen[g] {
			seen[g] = true
			continue
		}
		c := *a
		c.Metrics = nil
		allocs[i] = &c
	}
}
