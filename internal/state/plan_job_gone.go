package state

import "github.com/drover-project/drover/internal/structs"

// withoutGoneJob strips from a plan result everything that would bring
// back or run a job that was purged or stopped after the plan was computed
// (structs.PlanJobGone): the job write, its placements and in-place
// updates, their preemptions and the new deployment. Stops and deployment
// status updates still apply: they only move towards what is stored. The
// check runs inside the commit's transaction, so no purge can slip between
// it and the write.
func (tx *writeTxn) withoutGoneJob(req *structs.ApplyPlanResultsRequest) (*structs.ApplyPlanResultsRequest, error) {
	if req.Job == nil {
		return req, nil
	}
	stored, err := tx.jobByID(req.Job.Namespace, req.Job.ID)
	if err != nil || !structs.PlanJobGone(stored, req.Job) {
		return req, err
	}
	return &structs.ApplyPlanResultsRequest{
		AllocsStopped:     req.AllocsStopped,
		DeploymentUpdates: req.DeploymentUpdates,
		EvalID:            req.EvalID,
		UpdatedAt:         req.UpdatedAt,
		FinalEval:         req.FinalEval, // the eval is done all the same
	}, nil
}
