package agent

import (
	"net/http"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) evalRoutes() {
	h.handle("GET /v1/evaluations", h.evalList)
	h.handle("GET /v1/evaluation/{id}", h.evalGet)
	h.handle("GET /v1/evaluation/{id}/allocations", h.evalAllocations)
}

func (h *HTTPServer) evalList(w http.ResponseWriter, r *http.Request) (any, error) {
	lo, err := parseList(r)
	if err != nil {
		return nil, err
	}
	jobID, status := r.URL.Query().Get("job"), r.URL.Query().Get("status")
	if status != "" && !validEvalStatus(status) {
		return nil, server.BadRequest("status: %q is not an evaluation status", status)
	}
	var evals []*structs.Evaluation
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		evals, err = st.EvalsByIDPrefix(ws, q.Namespace, lo.Prefix)
		return st.Index("evals"), err
	}); err != nil {
		return nil, err
	}
	out := make([]*api.Evaluation, 0, len(evals))
	for _, e := range evals {
		if (jobID == "" || e.JobID == jobID) && (status == "" || e.Status == status) {
			out = append(out, apiconv.EvalFromStructs(e))
		}
	}
	return paginate(w, out, func(e *api.Evaluation) string { return e.ID }, lo)
}

func validEvalStatus(s string) bool {
	switch s {
	case structs.EvalStatusPending, structs.EvalStatusBlocked, structs.EvalStatusComplete,
		structs.EvalStatusFailed, structs.EvalStatusCanceled:
		return true
	}
	return false
}

// evalGet answers GET /v1/evaluation/:id; with related=true the reply lists
// every eval linked to it through PreviousEval, NextEval and BlockedEval.
func (h *HTTPServer) evalGet(w http.ResponseWriter, r *http.Request) (any, error) {
	related, err := boolParam(r, "related")
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	var eval *structs.Evaluation
	var stubs []*structs.EvaluationStub
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		if eval, err = st.EvalByID(ws, id); err != nil || eval == nil {
			return st.Index("evals"), err
		}
		if related {
			stubs, err = st.EvalsRelatedToID(ws, id)
		}
		return eval.ModifyIndex, err
	}); err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, server.NotFound("evaluation %q not found", id)
	}
	out := &evalWithTimeline{Evaluation: apiconv.EvalFromStructs(eval), Timeline: h.srv.EvalTimeline(eval)}
	for _, s := range stubs {
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
	id := r.PathValue("id")
	var allocs []*structs.Allocation
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		allocs, err = st.AllocsByEval(ws, id)
		return st.Index("allocs"), err
	}); err != nil {
		return nil, err
	}
	return allocStubs(allocs), nil
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

func (h *HTTPServer) evalDeleteRoutes() {
	h.handle("DELETE /v1/evaluations", h.evalDelete)
}

// evalDelete answers DELETE /v1/evaluations with a body of EvalIDs.
func (h *HTTPServer) evalDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.EvalDeleteRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	n, index, err := h.deleteEvals(&req)
	if err != nil {
		return nil, err
	}
	setIndex(w, index)
	return &api.EvalDeleteResponse{Count: n}, nil
}

// deleteEvals deletes the listed evals, or every terminal eval the
// request's filter (over Nomad's Evaluation fields) selects.
func (h *HTTPServer) deleteEvals(req *api.EvalDeleteRequest) (int, uint64, error) {
	if req.Filter == "" {
		return h.srv.DeleteEvals(req.EvalIDs)
	}
	if len(req.EvalIDs) > 0 {
		return 0, 0, server.BadRequest("EvalIDs: give either EvalIDs or a Filter, not both")
	}
	match, err := filterFunc[*api.Evaluation](req.Filter)
	if err != nil {
		return 0, 0, err
	}
	return h.srv.DeleteEvalsWhere(func(e *structs.Evaluation) (bool, error) {
		return match(apiconv.EvalFromStructs(e))
	})
}
