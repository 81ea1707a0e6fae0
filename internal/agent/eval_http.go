package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) evalList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.EvalList.On(h.srv), &structs.EvalListRequest{
		JobID: r.URL.Query().Get("job"), Status: r.URL.Query().Get("status"),
	})
	return listOf(reply.Evals, apiconv.EvalFromStructs, err)
}

// evalCount answers GET /v1/evaluations/count: how many evals match the
// prefix and filter.
func (h *HTTPServer) evalCount(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.EvalCount.On(h.srv), &structs.QueryOptions{})
	if err != nil {
		return nil, err
	}
	return &api.EvalCountResponse{Count: reply.Count}, nil
}

// evalGet answers GET /v1/evaluation/:id; with related=true the reply lists
// every eval linked to it through PreviousEval, NextEval and BlockedEval.
func (h *HTTPServer) evalGet(w http.ResponseWriter, r *http.Request) (any, error) {
	related, err := boolParam(r, "related")
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.EvalGetEval.On(h.srv), &structs.EvalSpecificRequest{EvalID: id, IncludeRelated: related})
	if err != nil {
		return nil, err
	}
	if reply.Eval == nil {
		return nil, server.NotFound("evaluation %q not found", id)
	}
	out := &evalWithTimeline{Evaluation: apiconv.EvalFromStructs(reply.Eval), Timeline: reply.Timeline}
	for _, s := range reply.Related {
		out.RelatedEvals = append(out.RelatedEvals, relatedEvalStub(s))
	}
	return out, nil
}

// evalWithTimeline is Nomad's evaluation plus Drover's lifecycle timeline,
// an extra field that Nomad clients ignore.
type evalWithTimeline struct {
	*api.Evaluation
	Timeline []*structs.EvalTimelineEntry
}

func (h *HTTPServer) evalAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.EvalAllocations.On(h.srv), &structs.EvalSpecificRequest{EvalID: r.PathValue("id")})
	if err != nil {
		return nil, err
	}
	return allocStubs(reply.Allocations), nil
}

// relatedEvalStub converts a related-eval summary to its API form.
func relatedEvalStub(s *structs.EvaluationStub) *api.EvaluationStub {
	return &api.EvaluationStub{
		ID: s.ID, Namespace: s.Namespace, Priority: s.Priority, Type: s.Type,
		TriggeredBy: s.TriggeredBy, JobID: s.JobID, NodeID: s.NodeID,
		DeploymentID: s.DeploymentID, Status: s.Status, StatusDescription: s.StatusDescription,
		WaitUntil: s.WaitUntil, NextEval: s.NextEval, PreviousEval: s.PreviousEval,
		BlockedEval: s.BlockedEval, CreateIndex: s.CreateIndex, ModifyIndex: s.ModifyIndex,
		CreateTime: s.CreateTime, ModifyTime: s.ModifyTime,
	}
}

// evalDelete answers DELETE /v1/evaluations with a body of EvalIDs.
func (h *HTTPServer) evalDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.EvalDeleteRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	reply, err := server.EvalDelete.Call(r.Context(), h.srv, &structs.EvalDeleteArgs{EvalIDs: req.EvalIDs, Filter: req.Filter, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.EvalDeleteResponse{Count: reply.Count}, nil
}
