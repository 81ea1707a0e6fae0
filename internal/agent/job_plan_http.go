package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/agent/jobdiff"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// jobPlan answers POST /v1/job/:id/plan: a dry run through the real
// scheduler, with the job diff annotated by what the scheduler would do
// to each group (in-place vs destructive), placement failures, and the
// next periodic launch. Nothing is written.
func (h *HTTPServer) jobPlan(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobPlanRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.Job == nil {
		return nil, server.BadRequest("Job: missing job in request body")
	}
	if req.Job.ID == nil || *req.Job.ID != r.PathValue("id") {
		return nil, server.BadRequest("Job.ID: does not match the job ID %q in the URL", r.PathValue("id"))
	}
	warnings, err := checkJobContract(req.Job, true, h.serverProblems(r.Context(), req.Job, writeRequest(r)))
	if err != nil {
		return nil, err
	}
	plan, err := server.JobPlan.Call(r.Context(), h.srv, &structs.JobPlanArgs{Job: apiconv.JobToStructs(req.Job), WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	out := &api.JobPlanResponse{
		JobModifyIndex:     plan.JobModifyIndex,
		Annotations:        apiconv.PlanAnnotationsFromStructs(plan.Annotations),
		FailedTGAllocs:     apiconv.AllocMetricsFromStructs(plan.FailedTGAllocs),
		NextPeriodicLaunch: plan.NextPeriodicLaunch,
		Warnings:           joinWarnings(plan.Warnings, warnings),
	}
	for _, e := range plan.CreatedEvals {
		out.CreatedEvals = append(out.CreatedEvals, apiconv.EvalFromStructs(e))
	}
	if req.Diff {
		out.Diff = jobdiff.Diff(plan.Old, plan.New, true)
		if plan.Annotations != nil {
			jobdiff.Annotate(out.Diff, plan.Annotations.DesiredTGUpdates)
		}
	}
	return out, nil
}
