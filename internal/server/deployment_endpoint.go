package server

import (
	"context"
	"fmt"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// DeploymentEndpoint is the Deployment.* endpoint family: the operator's
// controls over a rollout. Each change writes its eval in the same entry
// so the scheduler acts on it at once.
type DeploymentEndpoint struct{ srv *Server }

// Promote promotes the canaries of the named groups (or all).
func (e *DeploymentEndpoint) Promote(ctx context.Context, args *structs.DeploymentPromoteArgs) (*structs.DeploymentUpdateResponse, error) {
	id, all, groups := args.DeploymentID, args.All, args.Groups
	d, job, err := e.active(id)
	if err != nil {
		return nil, err
	}
	if !all && len(groups) == 0 {
		return nil, BadRequest("Groups: name the groups to promote, or set All")
	}
	if err := checkPromotable(d, all, groups); err != nil {
		return nil, err
	}
	eval := e.deploymentEval(d, job)
	index, err := e.srv.raftApply(ctx, structs.DeploymentPromoteRequestType, &structs.DeploymentPromoteRequest{
		DeploymentID: id, All: all, Groups: groups, Eval: eval, UpdatedAt: e.srv.now().UnixNano(),
	})
	return evalReply(eval, index, err)
}

// checkPromotable rejects a promotion the state store would refuse, so the
// caller gets a 400 naming the group rather than a failed raft apply.
func checkPromotable(d *structs.Deployment, all bool, groups []string) error {
	names := groups
	if all {
		names = nil
		for name, g := range d.TaskGroups {
			if g.DesiredCanaries > 0 {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return BadRequest("deployment %s has no canaries to promote", d.ID)
		}
	}
	for _, name := range names {
		g := d.TaskGroups[name]
		if g == nil {
			return BadRequest("Groups: deployment %s has no task group %q", d.ID, name)
		}
		if g.HealthyAllocs < g.DesiredCanaries {
			return BadRequest("Groups: task group %q has %d of %d canaries healthy", name, g.HealthyAllocs, g.DesiredCanaries)
		}
	}
	return nil
}

// Fail marks a deployment failed (the scheduler stops rolling it out).
// With auto_revert the same entry registers the job's latest stable
// version again, as the deployment watcher does for a failure it decides
// and as Nomad's Deployment.Fail does.
func (e *DeploymentEndpoint) Fail(ctx context.Context, args *structs.DeploymentFailArgs) (*structs.DeploymentUpdateResponse, error) {
	return e.setStatus(ctx, args.DeploymentID, structs.DeploymentStatusFailed, "Deployment marked as failed by an operator", true)
}

// Pause pauses or resumes a deployment.
func (e *DeploymentEndpoint) Pause(ctx context.Context, args *structs.DeploymentPauseArgs) (*structs.DeploymentUpdateResponse, error) {
	if args.Pause {
		return e.setStatus(ctx, args.DeploymentID, structs.DeploymentStatusPaused, "Deployment is paused", false)
	}
	return e.setStatus(ctx, args.DeploymentID, structs.DeploymentStatusRunning, "Deployment is running", true)
}

// SetAllocHealth marks a deployment's allocs healthy or unhealthy by
// hand, the only way an alloc of a group with `update { health_check =
// "manual" }` gets a health. One entry sets the health (timestamped by the
// servers' clock) and writes an eval for the job, as Nomad's
// Deployment.SetAllocHealth does; the deployment watcher then takes the
// next step, succeeds the deployment, or fails it on an unhealthy alloc
// (reverting with auto_revert). Drover differs on purpose in one point:
// Nomad decides that failure (and its revert) inside this call, Drover
// leaves it to the watcher, which decides every other health failure, so
// RevertedJobVersion is never set here.
func (e *DeploymentEndpoint) SetAllocHealth(ctx context.Context, args *structs.DeploymentAllocHealthArgs) (*structs.DeploymentUpdateResponse, error) {
	if len(args.HealthyAllocationIDs)+len(args.UnhealthyAllocationIDs) == 0 {
		return nil, BadRequest("HealthyAllocationIDs, UnhealthyAllocationIDs: name at least one allocation")
	}
	d, job, err := e.active(args.DeploymentID)
	if err != nil {
		return nil, err
	}
	if err := e.checkDeploymentAllocs(d, args); err != nil {
		return nil, err
	}
	eval := e.deploymentEval(d, job)
	index, err := e.srv.raftApply(ctx, structs.DeploymentAllocHealthRequestType, &structs.DeploymentAllocHealthRequest{
		DeploymentID: d.ID, HealthyAllocationIDs: args.HealthyAllocationIDs, UnhealthyAllocationIDs: args.UnhealthyAllocationIDs,
		Eval: eval, UpdatedAt: e.srv.now().UnixNano(),
	})
	return evalReply(eval, index, err)
}

// checkDeploymentAllocs refuses an alloc ID that is not one of the
// deployment's allocs, or is named both healthy and unhealthy, by field.
func (e *DeploymentEndpoint) checkDeploymentAllocs(d *structs.Deployment, args *structs.DeploymentAllocHealthArgs) error {
	seen := map[string]string{}
	for _, l := range []struct {
		field string
		ids   []string
	}{{"HealthyAllocationIDs", args.HealthyAllocationIDs}, {"UnhealthyAllocationIDs", args.UnhealthyAllocationIDs}} {
		for _, id := range l.ids {
			if other, dup := seen[id]; dup && other != l.field {
				return BadRequest("%s: allocation %q is also in %s", l.field, id, other)
			}
			seen[id] = l.field
			a, err := e.srv.State().AllocByID(nil, id)
			if err != nil {
				return err
			}
			if a == nil {
				return BadRequest("%s: allocation %q not found", l.field, id)
			}
			if a.DeploymentID != d.ID {
				return BadRequest("%s: allocation %q is not part of deployment %s", l.field, id, d.ID)
			}
		}
	}
	return nil
}

// Unblock unblocks a multiregion deployment that waits on its peers
// regions. Drover runs one region, so no deployment is ever blocked: a
// known deployment is refused by name with its status (Nomad answers an
// unblock of a deployment that is not blocked the same way).
func (e *DeploymentEndpoint) Unblock(ctx context.Context, args *structs.DeploymentUnblockArgs) (*structs.DeploymentUpdateResponse, error) {
	d, err := e.srv.State().DeploymentByID(nil, args.DeploymentID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, NotFound("deployment %q not found", args.DeploymentID)
	}
	return nil, BadRequest("deployment %s is %q, not blocked: only a multiregion deployment blocks, and Drover has none", d.ID, d.Status)
}

func (e *DeploymentEndpoint) setStatus(ctx context.Context, id, status, desc string, withEval bool) (*structs.DeploymentUpdateResponse, error) {
	d, job, err := e.active(id)
	if err != nil {
		return nil, err
	}
	var eval *structs.Evaluation
	if withEval {
		eval = e.deploymentEval(d, job)
	}
	req := &structs.DeploymentStatusUpdateRequest{
		DeploymentUpdate: &structs.DeploymentStatusUpdate{DeploymentID: id, Status: status, StatusDescription: desc},
		Eval:             eval, UpdatedAt: e.srv.now().UnixNano(),
	}
	revertedTo, err := e.srv.leader.DeploymentJobChange(d, req)
	if err != nil {
		return nil, err
	}
	index, err := e.srv.raftApply(ctx, structs.DeploymentStatusUpdateType, req)
	reply, err := evalReply(eval, index, err)
	if reply != nil {
		reply.RevertedJobVersion = revertedTo
	}
	return reply, err
}

// active returns an active deployment and its job, or a 4xx.
func (e *DeploymentEndpoint) active(id string) (*structs.Deployment, *structs.Job, error) {
	d, err := e.srv.State().DeploymentByID(nil, id)
	if err != nil {
		return nil, nil, err
	}
	if d == nil {
		return nil, nil, NotFound("deployment %q not found", id)
	}
	if !d.Active() {
		return nil, nil, BadRequest("deployment %s is %s: only active deployments can change", id, d.Status)
	}
	job, err := e.srv.State().JobByID(nil, d.Namespace, d.JobID)
	if err != nil {
		return nil, nil, err
	}
	if job == nil {
		return nil, nil, NotFound("job %q of deployment %s not found", d.JobID, id)
	}
	return d, job, nil
}

func (e *DeploymentEndpoint) deploymentEval(d *structs.Deployment, job *structs.Job) *structs.Evaluation {
	eval := e.srv.newJobEval(job, structs.EvalTriggerDeploymentWatcher)
	eval.DeploymentID = d.ID
	return eval
}

func evalReply(eval *structs.Evaluation, index uint64, err error) (*structs.DeploymentUpdateResponse, error) {
	if err != nil {
		return nil, fmt.Errorf("deployment change: %w", err)
	}
	r := &structs.DeploymentUpdateResponse{DeploymentModifyIndex: index, WriteMeta: structs.WriteMeta{Index: index}}
	if eval != nil {
		r.EvalID, r.EvalCreateIndex = eval.ID, index
	}
	return r, nil
}

// The Deployment.* reads.

// List answers one page of deployments in the request's namespace (or
// every namespace for "*").
func (e *DeploymentEndpoint) List(ctx context.Context, args *structs.DeploymentListRequest) (*structs.DeploymentListResponse, error) {
	reply := &structs.DeploymentListResponse{}
	match, err := pageFilter[structs.Deployment](&args.QueryOptions, nil)
	if err == nil {
		match, err = auth.VisibleOnly(e.srv.auth, args, acl.NamespaceCapabilityReadJob, auth.DeploymentNamespace, match)
	}
	if err != nil {
		return nil, err
	}
	return reply, readPage(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployments, match, (*state.StateStore).DeploymentsPage)
}

// GetDeployment answers one deployment (nil when absent).
func (e *DeploymentEndpoint) GetDeployment(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.SingleDeploymentResponse, error) {
	reply := &structs.SingleDeploymentResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployment, byKey((*state.StateStore).DeploymentByID, args.DeploymentID),
		func(d *structs.Deployment) uint64 { return d.ModifyIndex })
}

// Allocations answers a deployment's allocations.
func (e *DeploymentEndpoint) Allocations(ctx context.Context, args *structs.DeploymentSpecificRequest) (*structs.DeploymentAllocationsResponse, error) {
	reply := &structs.DeploymentAllocationsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations, byKey((*state.StateStore).AllocsByDeployment, args.DeploymentID))
}
