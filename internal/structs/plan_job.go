package structs

// PlanJobGone reports whether a plan computed for planJob must no longer
// place anything for it, given stored, the job in the state the plan is
// committed to (nil when it is not there).
//
// A plan is computed on a snapshot and committed later. Meanwhile the job
// may have been purged (stored is nil), purged and registered again (a new
// job with the same ID: another CreateIndex), or stopped by a newer
// version. Committing the plan's placements then would re-create a job
// the operator removed, or run allocs of a job nobody wants running. A
// plan whose job is merely superseded by a newer running version is still
// committed: the newer version's own eval replaces what it placed.
func PlanJobGone(stored, planJob *Job) bool {
	if planJob == nil {
		return false // a plan without a job (e.g. stops of a purged job)
	}
	if stored == nil {
		return true
	}
	if planJob.CreateIndex != 0 && stored.CreateIndex != planJob.CreateIndex {
		return true
	}
	return stored.Stop && !planJob.Stop && stored.JobModifyIndex > planJob.JobModifyIndex
}
