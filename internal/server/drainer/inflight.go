package drainer

import "github.com/drover-project/drover/internal/structs"

// defaultMaxParallel applies to groups without a migrate block, as in Nomad.
const defaultMaxParallel = 1

// maxParallel is the group's migrate.max_parallel: the group's block, else
// the job's, else 1. An explicit 0 is kept: as in Nomad, such a group does
// not migrate before the drain deadline (with no deadline the operator has
// to force the drain).
func maxParallel(job *structs.Job, a *structs.Allocation) int {
	tg := lookupGroup(job, a.TaskGroup)
	if tg == nil {
		tg = lookupGroup(a.Job, a.TaskGroup) // group removed from the job since
	}
	switch {
	case tg != nil && tg.Migrate != nil:
		return tg.Migrate.MaxParallel
	case job != nil && job.Migrate != nil:
		return job.Migrate.MaxParallel
	}
	return defaultMaxParallel
}

func lookupGroup(job *structs.Job, name string) *structs.TaskGroup {
	if job == nil {
		return nil
	}
	return job.LookupTaskGroup(name)
}

// inFlight counts the group's migrations still under way, across all
// nodes. A migration of alloc M (DesiredTransition.Migrate set) is in
// flight while
//
//   - M itself is still live (the scheduler has not yet stopped it and
//     placed its replacement), or
//   - a live replacement R (R.PreviousAllocation == M.ID) is not yet
//     healthy.
//
// Each migration counts once even when both hold. A migration whose
// replacement is terminal, or that has no live replacement after M
// stopped (e.g. unplaceable, or the group was scaled down), no longer
// counts: waiting on it could stall the drain forever, and the drain
// deadline bounds the capacity lost meanwhile.
func inFlight(jobAllocs []*structs.Allocation, group string) int {
	migrated := map[string]bool{}
	for _, a := range jobAllocs {
		if a.TaskGroup == group && migrating(a) {
			migrated[a.ID] = !a.TerminalStatus()
		}
	}
	n := 0
	for _, live := range migrated {
		if live {
			n++
		}
	}
	for _, r := range jobAllocs {
		live, ok := migrated[r.PreviousAllocation]
		if r.TaskGroup != group || !ok || live || r.TerminalStatus() || healthy(r) || migrating(r) {
			continue // a migrating replacement is counted as its own migration
		}
		migrated[r.PreviousAllocation] = true // count once per migration
		n++
	}
	return n
}

// healthy reports whether a replacement has come up: running, with a
// health result from its client (DeploymentStatus.Healthy, set in a
// deployment after the update block's checks and otherwise after the
// migrate block's: min_healthy_time, or healthy_deadline passed). As in
// Nomad, a replacement that is merely running does not count: the next
// migration waits for its health; and an unhealthy result ends the wait as
// a healthy one does ("until replacement allocations have been healthy for
// their min_healthy_time or healthy_deadline is reached"), so an unhealthy
// replacement cannot hold a drain for ever.
func healthy(a *structs.Allocation) bool {
	return a.ClientStatus == structs.AllocClientStatusRunning &&
		a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil
}
