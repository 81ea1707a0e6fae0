package command

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// Deployment statuses and the description of a rollout waiting for a
// manual promotion, as the agent (and Nomad) write them.
const (
	deploySuccessful    = "successful"
	deployFailed        = "failed"
	deployCancelled     = "cancelled"
	deployRunning       = "running"
	descNeedsPromotion  = "Deployment is running but requires manual promotion"
	exitDeploymentFails = 1
)

// submittedDeployment finds the deployment rolling out the version just
// submitted: the one the last eval worked in, else the job's latest if it
// belongs to the registered spec. nil means the job has none (batch jobs,
// groups without an update block, an unchanged re-submit).
func (e *env) submittedDeployment(jobID string, specIndex uint64, last *api.Evaluation) (string, error) {
	if last != nil && last.DeploymentID != "" {
		return last.DeploymentID, nil
	}
	cl, _ := e.api()
	d, _, err := cl.Jobs().LatestDeployment(jobID, e.query())
	if err != nil {
		return "", apiError("reading the deployment of job "+jobID, err)
	}
	if d == nil || d.JobSpecModifyIndex != specIndex {
		return "", nil
	}
	return d.ID, nil
}

// monitorDeployment follows a deployment until it ends or waits for a
// promotion, drawing its progress as it changes. A failed or cancelled
// deployment exits 1: the submitted version did not roll out.
func (e *env) monitorDeployment(id string) error {
	e.say("==> ", "Monitoring deployment %q", e.short(id))
	view := e.newDeployView()
	cl, _ := e.api()
	var index uint64
	for {
		q := e.query()
		q.WaitIndex, q.WaitTime = index, monitorWait
		d, meta, err := cl.Deployments().Info(id, q)
		if err != nil {
			return apiError("reading deployment "+id, err)
		}
		view.update(d)
		if done, err := e.deploymentEnded(d, view); done {
			return err
		}
		index = meta.LastIndex
	}
}

// deploymentEnded reports whether the monitor can stop, and with what.
func (e *env) deploymentEnded(d *api.Deployment, view deployView) (bool, error) {
	switch {
	case d.Status == deploySuccessful:
		view.finish(d)
		e.say("  ✓ ", "Deployment %q successful", e.short(d.ID))
		return true, nil
	case d.Status == deployFailed || d.Status == deployCancelled:
		view.finish(d)
		e.say("  ! ", "Deployment %q %s: %s", e.short(d.ID), d.Status, d.StatusDescription)
		return true, exitCode(exitDeploymentFails)
	case needsPromotion(d):
		view.finish(d)
		e.say("  ! ", "Deployment %q needs promotion: its canaries are healthy", e.short(d.ID))
		fmt.Fprintf(e.stdout, "\nTo roll out the new version to every allocation run:\n\n    drover deployment promote %s\n", e.short(d.ID))
		return true, nil
	}
	return false, nil
}

// needsPromotion is true once a manually promoted rollout has nothing left
// to do but wait for the operator: every unpromoted canary group has all
// its canaries healthy, which is when a promotion can succeed.
func needsPromotion(d *api.Deployment) bool {
	if d.Status != deployRunning || d.StatusDescription != descNeedsPromotion {
		return false
	}
	waiting := false
	for _, g := range d.TaskGroups {
		if g.DesiredCanaries == 0 || g.Promoted {
			continue
		}
		if g.HealthyAllocs < g.DesiredCanaries {
			return false
		}
		waiting = true
	}
	return waiting
}
