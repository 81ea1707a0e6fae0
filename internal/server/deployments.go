package server

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/deploywatch"
	"github.com/drover-project/drover/internal/structs"
)

// idleRecheck bounds how long a leader loop sleeps without a change, so
// deadlines are noticed even on a quiet cluster.
const idleRecheck = time.Minute

// deploymentRetry is how soon the watcher steps again after one of its
// writes failed: a failed write changes no deployment, so no watch would
// wake it, and the rollout would otherwise wait for idleRecheck.
const deploymentRetry = time.Second

// watchDeployments runs the deployment watcher on the leader: each time a
// deployment changes (alloc health is counted into it by the state store)
// or a progress deadline passes, it steps the watcher and writes what the
// step asks for.
func (s *Server) watchDeployments(ctx context.Context) {
	w := deploywatch.New()
	for ctx.Err() == nil {
		ws := memdb.NewWatchSet()
		_, next, err := s.deploymentWatcherStep(ws, w)
		if err != nil {
			s.log.Warn("deployment watcher: read deployments failed; retrying", "error", err)
			next = s.now().Add(deploymentRetry)
		}
		s.waitForChange(ctx, ws, next)
	}
}

// deploymentWatcherStep steps the watcher once over the running
// deployments (read under ws, so finished ones neither wake it nor cost a
// visit) and writes its actions; it returns whether it wrote any and the
// next progress deadline.
func (s *Server) deploymentWatcherStep(ws memdb.WatchSet, w *deploywatch.Watcher) (bool, time.Time, error) {
	deployments, err := s.State().RunningDeployments(ws)
	if err != nil {
		return false, time.Time{}, err
	}
	now := s.now()
	actions := w.Step(deployments, now)
	next := deploywatch.NextDeadline(deployments)
	for _, a := range actions {
		if err := s.applyDeploymentAction(a); err != nil && s.ctx.Err() == nil {
			s.log.Warn("deployment watcher: write failed; retrying", "deployment", a.Deployment.ID, "error", err)
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

// waitForChange waits for a watched change, the next deadline (on the
// injected clock) or the idle recheck, whichever comes first.
func (s *Server) waitForChange(ctx context.Context, ws memdb.WatchSet, deadline time.Time) {
	wait := idleRecheck
	if !deadline.IsZero() {
		until := deadline.Sub(s.now())
		if until <= 0 {
			return // passed while we were busy: step again now
		}
		wait = min(wait, until)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := s.config.Clock.AfterFunc(wait, cancel)
	defer timer.Stop()
	_ = ws.WatchCtx(waitCtx)
}

// applyDeploymentAction writes one watcher decision: a status change or a
// promotion, each with its deployment-watcher eval in the same entry, or
// the eval alone. The eval starts a new chain: no PreviousEval.
func (s *Server) applyDeploymentAction(a deploywatch.Action) error {
	d := a.Deployment
	var eval *structs.Evaluation
	if a.CreateEval {
		job, err := s.State().JobByID(nil, d.Namespace, d.JobID)
		if err != nil {
			return err
		}
		if job != nil {
			eval = s.newJobEval(job, structs.EvalTriggerDeploymentWatcher)
			eval.DeploymentID = d.ID
		}
	}
	now := s.now().UnixNano()
	switch {
	case a.Update != nil:
		req := &structs.DeploymentStatusUpdateRequest{DeploymentUpdate: a.Update, Eval: eval, UpdatedAt: now}
		if err := s.deploymentJobChange(d, req); err != nil {
			return err
		}
		_, err := s.raftApply(structs.DeploymentStatusUpdateType, req)
		return err
	case len(a.Promote) > 0:
		_, err := s.raftApply(structs.DeploymentPromoteRequestType, &structs.DeploymentPromoteRequest{
			DeploymentID: d.ID, Groups: a.Promote, Eval: eval, UpdatedAt: now,
		})
		return err
	case eval != nil:
		return s.UpsertEvals([]*structs.Evaluation{eval})
	}
	return nil
}

// deploymentJobChange adds the job write a finished deployment implies, in
// the same entry as its status: a successful deployment marks its job
// version stable; a failed one with auto_revert registers the job's
// latest stable version again (the eval then rolls it out).
func (s *Server) deploymentJobChange(d *structs.Deployment, req *structs.DeploymentStatusUpdateRequest) error {
	job, err := s.State().JobByID(nil, d.Namespace, d.JobID)
	if err != nil || job == nil || job.Version != d.JobVersion || job.Stop {
		return err // gone, stopped or superseded: nothing to mark or revert
	}
	switch req.DeploymentUpdate.Status {
	case structs.DeploymentStatusSuccessful:
		stable := job.Copy()
		stable.Stable = true
		req.Job = stable
	case structs.DeploymentStatusFailed:
		if !autoRevert(d) {
			return nil
		}
		target, err := s.latestStableVersion(job)
		if err != nil || target == nil {
			return err
		}
		revert := target.Copy()
		clearServerOwnedFields(revert)
		revert.SubmitTime = s.now().UnixNano()
		req.Job = revert
		req.DeploymentUpdate.StatusDescription += fmt.Sprintf(" - rolling back to job version %d", target.Version)
	}
	return nil
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
func (s *Server) latestStableVersion(job *structs.Job) (*structs.Job, error) {
	versions, err := s.State().JobVersionsByID(nil, job.Namespace, job.ID)
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
