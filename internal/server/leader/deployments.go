package leader

import (
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/deploywatch"
	"github.com/drover-project/drover/internal/structs"
)

// deploymentRetry is how soon the watcher steps again after one of its
// writes failed: a failed write changes no deployment, so no watch would
// wake it, and the rollout would otherwise wait for idleRecheck.
const deploymentRetry = time.Second

// The deployment watcher runs on the leader (the "deployment-watcher"
// duty): each time a deployment changes (alloc health is counted into it
// by the state store) or a progress deadline passes, it steps the watcher
// and writes what the step asks for.

// deploymentWatcherStep steps the watcher once over the running
// deployments (read under ws, so finished ones neither wake it nor cost a
// visit) and writes its actions; it returns whether it wrote any and the
// next progress deadline.
func (l *Leader) deploymentWatcherStep(ws memdb.WatchSet, w *deploywatch.Watcher) (bool, time.Time, error) {
	deployments, err := l.srv.State().RunningDeployments(ws)
	if err != nil {
		return false, time.Time{}, err
	}
	now := l.now()
	actions := w.Step(deployments, now)
	next := deploywatch.NextDeadline(deployments)
	for _, a := range actions {
		if err := l.applyDeploymentAction(a); err != nil && l.c.Ctx.Err() == nil {
			l.log.Warn("deployment watcher: write failed; retrying", "deployment", a.Deployment.ID, "error", err)
			// A failed write changes no deployment, so no watch would
			// wake the watcher: step again soon, and ask for the step's
			// eval again, since it was in the failed entry.
			w.Forget(a.Deployment.ID)
			if retry := now.Add(deploymentRetry); next.IsZero() || retry.Before(next) {
				next = retry
			}
		}
	}
	return len(actions) > 0, next, nil
}

// applyDeploymentAction writes one watcher decision: a status change or a
// promotion, each with its deployment-watcher eval in the same entry, or
// the eval alone. The eval starts a new chain: no PreviousEval.
func (l *Leader) applyDeploymentAction(a deploywatch.Action) error {
	d := a.Deployment
	var eval *structs.Evaluation
	if a.CreateEval {
		job, err := l.srv.State().JobByID(nil, d.Namespace, d.JobID)
		if err != nil {
			return err
		}
		if job != nil {
			eval = l.srv.NewJobEval(job, structs.EvalTriggerDeploymentWatcher)
			eval.DeploymentID = d.ID
		}
	}
	now := l.now().UnixNano()
	switch {
	case a.Update != nil:
		req := &structs.DeploymentStatusUpdateRequest{DeploymentUpdate: a.Update, Eval: eval, UpdatedAt: now}
		if _, err := l.DeploymentJobChange(d, req); err != nil {
			return err
		}
		_, err := l.srv.Apply(structs.DeploymentStatusUpdateType, req)
		return err
	case len(a.Promote) > 0:
		_, err := l.srv.Apply(structs.DeploymentPromoteRequestType, &structs.DeploymentPromoteRequest{
			DeploymentID: d.ID, Groups: a.Promote, Eval: eval, UpdatedAt: now,
		})
		return err
	case eval != nil:
		return l.srv.UpsertEvals([]*structs.Evaluation{eval})
	}
	return nil
}

// DeploymentJobChange adds the job write a finished deployment implies, in
// the same entry as its status: a successful deployment marks its job
// version stable; a failed one with auto_revert registers the job's
// latest stable version again (the eval then rolls it out). The
// Deployment.Fail endpoint uses it too, so an operator's fail reverts
// the same way.
//
// revertedTo is the stable version a failed deployment rolls back to (nil
// when it does not).
func (l *Leader) DeploymentJobChange(d *structs.Deployment, req *structs.DeploymentStatusUpdateRequest) (revertedTo *uint64, err error) {
	job, err := l.srv.State().JobByID(nil, d.Namespace, d.JobID)
	if err != nil || job == nil || job.Version != d.JobVersion || job.Stop {
		return nil, err // gone, stopped or superseded: nothing to mark or revert
	}
	switch req.DeploymentUpdate.Status {
	case structs.DeploymentStatusSuccessful:
		stable := job.Copy()
		stable.Stable = true
		req.Job = stable
	case structs.DeploymentStatusFailed:
		if !autoRevert(d) {
			return nil, nil
		}
		target, err := l.latestStableVersion(job)
		if err != nil || target == nil {
			return nil, err
		}
		revert := target.Copy()
		l.srv.ClearServerOwnedFields(revert)
		revert.SubmitTime = l.now().UnixNano()
		req.Job = revert
		req.DeploymentUpdate.StatusDescription += fmt.Sprintf(" - rolling back to job version %d", target.Version)
		v := target.Version
		return &v, nil
	}
	return nil, nil
}

func autoRevert(d *structs.Deployment) bool {
	for _, g := range d.TaskGroups {
		if g.AutoRevert {
			return true
		}
	}
	return false
}

// latestStableVersion is the newest stable version older than the job's
// current one whose spec differs from it; nil when there is none.
func (l *Leader) latestStableVersion(job *structs.Job) (*structs.Job, error) {
	versions, err := l.srv.State().JobVersionsByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	for _, v := range versions { // newest first
		if v.Version < job.Version && v.Stable && !v.SpecEqual(job) {
			return v, nil
		}
	}
	return nil, nil
}
