package scheduler

import (
	"math"

	"github.com/drover-project/drover/internal/structs"
)

// Deployment status descriptions written by the scheduler.
const (
	DeploymentDescRunning         = "Deployment is running"
	DeploymentDescRunningCanaries = "Deployment is running but requires manual promotion"
	DeploymentDescStoppedJob      = "Cancelled because job is stopped"
	DeploymentDescNewerJob        = "Cancelled due to newer version of job"
)

// rolling reports whether a group's updates go through a deployment.
func (r *reconciler) rolling(tg *structs.TaskGroup) bool {
	u := tg.Update
	return !r.batch && u != nil && (u.MaxParallel > 0 || u.Canary > 0)
}

// reconcileDeployment adopts the job version's active deployment, or
// cancels an active one that belongs to an older version or a stopped job.
func (r *reconciler) reconcileDeployment() {
	d := r.latest
	if r.batch || d == nil {
		return
	}
	if !d.Active() {
		// A failed deployment of this very version ends its rollout: no
		// new deployment, no more destructive updates or canaries (an
		// operator or auto_revert registers another version to go on).
		r.rolloutFailed = d.Status == structs.DeploymentStatusFailed && !r.stopped() &&
			d.JobVersion == r.job.Version && d.JobCreateIndex == r.job.CreateIndex
		if r.rolloutFailed {
			r.failed = d
		}
		return
	}
	switch {
	case r.stopped():
		r.cancelDeployment(d, DeploymentDescStoppedJob)
	case d.JobVersion == r.job.Version && d.JobCreateIndex == r.job.CreateIndex:
		r.deployment = d
	default:
		r.cancelDeployment(d, DeploymentDescNewerJob)
	}
}

func (r *reconciler) cancelDeployment(d *structs.Deployment, desc string) {
	r.result.deploymentUpdates = append(r.result.deploymentUpdates, &structs.DeploymentStatusUpdate{
		DeploymentID: d.ID, Status: structs.DeploymentStatusCancelled, StatusDescription: desc,
	})
}

// ensureDeployment creates the job version's deployment on first need and
// makes sure it tracks the group.
func (r *reconciler) ensureDeployment(tg *structs.TaskGroup) *structs.DeploymentState {
	if r.deployment == nil {
		r.deployment = &structs.Deployment{
			ID: idFrom(r.ids), Namespace: r.job.Namespace, JobID: r.job.ID, JobVersion: r.job.Version,
			JobModifyIndex: r.job.ModifyIndex, JobSpecModifyIndex: r.job.JobModifyIndex,
			JobCreateIndex: r.job.CreateIndex, TaskGroups: map[string]*structs.DeploymentState{},
			Status: structs.DeploymentStatusRunning, StatusDescription: DeploymentDescRunning,
			EvalPriority: r.eval.Priority, CreateTime: r.now.UnixNano(), ModifyTime: r.now.UnixNano(),
		}
		r.result.deployment = r.deployment
	}
	if st, ok := r.deployment.TaskGroups[tg.Name]; ok {
		return st
	}
	r.mutableDeployment()
	u := tg.Update
	st := &structs.DeploymentState{
		AutoRevert: u.AutoRevert, AutoPromote: u.AutoPromote, ProgressDeadline: u.ProgressDeadline,
		DesiredTotal: tg.Count,
	}
	if u.ProgressDeadline > 0 {
		st.RequireProgressBy = r.now.Add(u.ProgressDeadline)
	}
	r.deployment.TaskGroups[tg.Name] = st
	return st
}

// mutableDeployment returns the deployment for the plan to carry, copying
// the stored one on first change (objects from the state are immutable).
func (r *reconciler) mutableDeployment() *structs.Deployment {
	if r.result.deployment == nil {
		r.result.deployment = r.deployment.Copy()
		r.deployment = r.result.deployment
	}
	return r.deployment
}

// promoted reports whether the group's canaries were promoted.
func (r *reconciler) promoted(tg *structs.TaskGroup) bool {
	if r.deployment == nil {
		return false
	}
	st, ok := r.deployment.TaskGroups[tg.Name]
	return ok && st.Promoted
}

// splitCanaries separates the unpromoted canaries of the current
// deployment, which do not count toward the group's count.
func (r *reconciler) splitCanaries(tg *structs.TaskGroup, allocs []*structs.Allocation) (canaries, rest []*structs.Allocation) {
	if r.deployment == nil || r.promoted(tg) {
		return nil, allocs
	}
	for _, a := range allocs {
		if a.DeploymentID == r.deployment.ID && a.DeploymentStatus != nil && a.DeploymentStatus.Canary && !a.TerminalStatus() {
			canaries = append(canaries, a)
		} else {
			rest = append(rest, a)
		}
	}
	return canaries, rest
}

// stopFailedCanaries stops the unpromoted canaries of the job version's
// failed deployment, as Nomad does: the old version stays, and the
// canaries must not count toward the group's count (which would stop an
// old alloc instead). It returns the group's other allocs.
func (r *reconciler) stopFailedCanaries(tg *structs.TaskGroup, allocs []*structs.Allocation, du *structs.DesiredUpdates) []*structs.Allocation {
	st := (*structs.DeploymentState)(nil)
	if r.failed != nil {
		st = r.failed.TaskGroups[tg.Name]
	}
	if st == nil || st.Promoted || len(st.PlacedCanaries) == 0 {
		return allocs
	}
	canary := map[string]bool{}
	for _, id := range st.PlacedCanaries {
		canary[id] = true
	}
	rest := allocs[:0:0]
	for _, a := range allocs {
		switch {
		case !canary[a.ID]:
			rest = append(rest, a)
		case !a.TerminalStatus():
			r.result.stop = append(r.result.stop, stopRequest{alloc: a, desc: allocNotNeeded})
			du.Stop++
		}
	}
	return rest
}

// destructiveBudget is how many destructive updates this eval may start:
// max_parallel less the deployment's allocs not yet healthy.
func (r *reconciler) destructiveBudget(tg *structs.TaskGroup) int {
	u := tg.Update
	if r.rolloutFailed && r.rolling(tg) {
		return 0
	}
	if r.batch || u == nil || u.MaxParallel <= 0 {
		return math.MaxInt
	}
	d := r.deployment
	if d == nil {
		return u.MaxParallel
	}
	if d.Status != structs.DeploymentStatusRunning {
		return 0 // paused, blocked or otherwise held
	}
	inFlight := 0
	for _, a := range r.allocs {
		if a.DeploymentID == d.ID && a.TaskGroup == tg.Name && !a.TerminalStatus() && !healthy(a) {
			inFlight++
		}
	}
	return max(u.MaxParallel-inFlight, 0)
}

func healthy(a *structs.Allocation) bool {
	ds := a.DeploymentStatus
	return ds != nil && ds.Healthy != nil && *ds.Healthy
}

// placeCanaries places the missing canaries of an update with a canary
// count. It returns -1 when the group is not in a canary phase, else how
// many canaries it placed (the rollout waits for promotion meanwhile).
func (r *reconciler) placeCanaries(tg *structs.TaskGroup, entries []entry, canaries []*structs.Allocation, du *structs.DesiredUpdates) int {
	u := tg.Update
	if r.batch || u == nil || u.Canary == 0 || r.promoted(tg) || r.rolloutFailed {
		return -1
	}
	updating := len(canaries) > 0
	for _, e := range entries {
		updating = updating || e.action == actDestructive
	}
	if !updating {
		return -1 // nothing to replace: a first version needs no canaries
	}
	desc := DeploymentDescRunning
	if !u.AutoPromote {
		desc = DeploymentDescRunningCanaries
	}
	if st := r.ensureDeployment(tg); st.DesiredCanaries != u.Canary || r.deployment.StatusDescription != desc {
		d := r.mutableDeployment()
		d.TaskGroups[tg.Name].DesiredCanaries = u.Canary
		d.StatusDescription = desc
	}
	taken := map[uint]bool{}
	for _, c := range canaries {
		taken[c.Index()] = true
	}
	placed := 0
	for idx := uint(0); len(canaries)+placed < u.Canary; idx++ {
		if taken[idx] {
			continue
		}
		r.result.place = append(r.result.place, placeRequest{tg: tg, name: structs.AllocName(r.job.ID, tg.Name, idx), index: idx, canary: true})
		du.Canary++
		placed++
	}
	return placed
}
