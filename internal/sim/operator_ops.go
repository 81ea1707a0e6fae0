package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Operations an operator can cause, beyond register/update/scale/stop:
// each goes through the server's endpoint, as the HTTP API would, and
// runs the cluster to idle.

// PurgeJob deregisters a job and purges it from the state.
func (s *Sim) PurgeJob(name string) error {
	if _, err := server.JobDeregister.Call(context.Background(), s.srv, &structs.JobDeregisterArgs{JobID: name, Purge: true}); err != nil {
		return fmt.Errorf("sim: purge %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

// StopAlloc stops the job's first running alloc (`nomad alloc stop`):
// one alloc-stop eval replaces it.
func (s *Sim) StopAlloc(jobID string) error {
	a, _, err := s.runningAlloc(jobID)
	if err != nil {
		return err
	}
	if _, err := server.AllocStop.Call(context.Background(), s.srv, &structs.AllocStopArgs{AllocID: a.ID}); err != nil {
		return fmt.Errorf("sim: stop alloc of %s: %w", jobID, err)
	}
	return s.RunUntilIdle()
}

// RestartAlloc restarts the tasks of the job's first running alloc in
// place (`nomad alloc restart`): the restart happens on the client, which
// reports every task restarted once more and still running. The server
// schedules nothing: no eval, the alloc keeps its node.
func (s *Sim) RestartAlloc(jobID string) error {
	a, n, err := s.runningAlloc(jobID)
	if err != nil {
		return err
	}
	u := s.taskUpdate(a, structs.AllocClientStatusRunning, false)
	now := s.Now()
	for _, ts := range u.TaskStates {
		ts.Restarts++
		ts.LastRestart = now
		ts.Events = []*structs.TaskEvent{
			{Type: "Restart Signaled", Time: now.UnixNano(), DisplayMessage: "User requested running tasks to restart"},
			{Type: "Restarting", Time: now.UnixNano(), RestartReason: "User requested restart"},
			{Type: "Started", Time: now.UnixNano(), DisplayMessage: "Task started by client"},
		}
	}
	if err := n.send([]*structs.Allocation{u}); err != nil {
		return err
	}
	return s.RunUntilIdle()
}

// SetEligibility marks a node eligible or ineligible for scheduling.
func (s *Sim) SetEligibility(name string, eligible bool) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	e := structs.NodeSchedulingIneligible
	if eligible {
		e = structs.NodeSchedulingEligible
	}
	if _, err := server.NodeUpdateEligibility.Call(context.Background(), s.srv, &structs.NodeUpdateEligibilityArgs{NodeID: n.ID, Eligibility: e}); err != nil {
		return fmt.Errorf("sim: eligibility of %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

// DrainWithDeadline drains a node; at the deadline whatever is left is
// migrated at once.
func (s *Sim) DrainWithDeadline(name string, deadline time.Duration) error {
	n, err := s.node(name)
	if err != nil {
		return err
	}
	if _, err := server.NodeUpdateDrain.Call(context.Background(), s.srv, &structs.NodeUpdateDrainArgs{NodeID: n.ID, DrainStrategy: &structs.DrainSpec{Deadline: deadline}}); err != nil {
		return fmt.Errorf("sim: drain %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

// PromoteDeployment promotes the canaries of the job's running deployment.
func (s *Sim) PromoteDeployment(jobID string) error {
	d, err := s.runningDeployment(jobID)
	if err != nil {
		return err
	}
	if _, err := server.DeploymentPromote.Call(context.Background(), s.srv, &structs.DeploymentPromoteArgs{DeploymentID: d.ID, All: true}); err != nil {
		return fmt.Errorf("sim: promote %s: %w", jobID, err)
	}
	return s.RunUntilIdle()
}

// FailDeployment fails the job's running deployment.
func (s *Sim) FailDeployment(jobID string) error {
	d, err := s.runningDeployment(jobID)
	if err != nil {
		return err
	}
	if _, err := server.DeploymentFail.Call(context.Background(), s.srv, &structs.DeploymentFailArgs{DeploymentID: d.ID}); err != nil {
		return fmt.Errorf("sim: fail deployment of %s: %w", jobID, err)
	}
	return s.RunUntilIdle()
}

func (s *Sim) runningDeployment(jobID string) (*structs.Deployment, error) {
	ds, err := s.srv.State().DeploymentsByJobID(nil, structs.DefaultNamespace, jobID)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Status == structs.DeploymentStatusRunning {
			return d, nil
		}
	}
	return nil, fmt.Errorf("sim: job %q has no running deployment", jobID)
}

// ForcePeriodic launches a child of a periodic job now (`nomad job
// periodic force`): one periodic-job eval.
func (s *Sim) ForcePeriodic(jobID string) error {
	if _, err := server.JobPeriodicForce.Call(context.Background(), s.srv, &structs.JobPeriodicForceArgs{JobID: jobID}); err != nil {
		return fmt.Errorf("sim: force %s: %w", jobID, err)
	}
	return s.RunUntilIdle()
}

// Dispatch launches a child of a parameterized job: one job-register eval
// for the child.
func (s *Sim) Dispatch(jobID string) error {
	if _, err := server.JobDispatch.Call(context.Background(), s.srv, &structs.JobDispatchArgs{JobID: jobID}); err != nil {
		return fmt.Errorf("sim: dispatch %s: %w", jobID, err)
	}
	return s.RunUntilIdle()
}
