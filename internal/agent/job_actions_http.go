package agent

import (
	"errors"
	"net/http"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) jobActionRoutes() {
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/job/{id}/scale", h.jobScale)
		h.handle(m+" /v1/job/{id}/plan", h.jobPlan)
		h.handle(m+" /v1/job/{id}/evaluate", h.jobEvaluate)
		h.handle(m+" /v1/job/{id}/revert", h.jobRevert)
		h.handle(m+" /v1/validate/job", h.jobValidate)
		h.handle(m+" /v1/allocation/{id}/stop", h.allocStop)
	}
	h.handle("GET /v1/job/{id}/summary", h.jobSummary)
}

// writeReply is the answer to a write that created an eval.
func writeReply(w http.ResponseWriter, r *server.JobRegisterReply) *api.JobRegisterResponse {
	setIndex(w, r.Index)
	return &api.JobRegisterResponse{EvalID: r.EvalID, EvalCreateIndex: r.EvalCreateIndex,
		JobModifyIndex: r.JobModifyIndex, QueryMeta: api.QueryMeta{LastIndex: r.Index}}
}

// jobScale answers POST /v1/job/:id/scale: a new job version with the
// group's count and one job-scaling eval.
func (h *HTTPServer) jobScale(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.ScalingRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.Error {
		return nil, server.BadRequest("Error: scaling error events are not supported; send a Count")
	}
	reply, err := h.srv.Job.Scale(&server.JobScaleArgs{
		Namespace: namespaceParam(r, req.Namespace), JobID: r.PathValue("id"),
		Group: req.Target["Group"], Count: req.Count, Message: req.Message,
	})
	if err != nil {
		return nil, err
	}
	return writeReply(w, reply), nil
}

// jobEvaluate answers POST /v1/job/:id/evaluate: a forced new eval.
func (h *HTTPServer) jobEvaluate(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobEvaluateRequest
	if r.ContentLength != 0 {
		if err := decodeBody(w, r, &req); err != nil {
			return nil, err
		}
	}
	reply, err := h.srv.Job.Evaluate(namespaceParam(r, req.Namespace), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return writeReply(w, reply), nil
}

// jobRevert answers POST /v1/job/:id/revert.
func (h *HTTPServer) jobRevert(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobRevertRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.JobID != "" && req.JobID != r.PathValue("id") {
		return nil, server.BadRequest("JobID: %q does not match the job %q in the URL", req.JobID, r.PathValue("id"))
	}
	reply, err := h.srv.Job.Revert(namespaceParam(r, req.Namespace), r.PathValue("id"), req.JobVersion, req.EnforcePriorVersion)
	if err != nil {
		return nil, err
	}
	return writeReply(w, reply), nil
}

// jobValidate answers POST /v1/validate/job with every problem listed;
// an invalid job is a 200 with ValidationErrors, as Nomad answers.
func (h *HTTPServer) jobValidate(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobValidateRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.Job == nil {
		return nil, server.BadRequest("Job: missing job in request body")
	}
	_, err := h.srv.Job.Validate(apiconv.JobToStructs(req.Job))
	out := &api.JobValidateResponse{DriverConfigValidated: false, ValidationErrors: []string{}}
	var verrs structs.ValidationErrors
	switch {
	case errors.As(err, &verrs):
		for _, v := range verrs {
			out.ValidationErrors = append(out.ValidationErrors, v.Field+": "+v.Message)
		}
		out.Error = verrs.Error()
	case err != nil:
		return nil, err
	}
	return out, nil
}

// allocStop answers POST /v1/allocation/:id/stop: the alloc is migrated
// by one alloc-stop eval.
func (h *HTTPServer) allocStop(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Alloc.Stop(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.AllocStopResponse{EvalID: reply.EvalID, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}

func (h *HTTPServer) jobSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	var sum *server.JobSummary
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		job, err := st.JobByID(ws, q.Namespace, id)
		if err != nil || job == nil {
			sum = nil
			return st.Index("jobs"), err
		}
		if sum, err = server.SummarizeJob(ws, st, job); err != nil {
			return 0, err
		}
		return max(st.Index("allocs"), st.Index("jobs"), st.Index("evals")), nil
	}); err != nil {
		return nil, err
	}
	if sum == nil {
		return nil, server.NotFound("job %q not found", id)
	}
	return summaryToAPI(sum), nil
}

func summaryToAPI(s *server.JobSummary) *api.JobSummary {
	out := &api.JobSummary{JobID: s.JobID, Namespace: s.Namespace, Summary: map[string]api.TaskGroupSummary{},
		CreateIndex: s.CreateIndex, ModifyIndex: s.ModifyIndex}
	for name, g := range s.Summary {
		out.Summary[name] = api.TaskGroupSummary(g)
	}
	if s.Children != nil {
		out.Children = &api.JobChildrenSummary{Pending: s.Children.Pending, Running: s.Children.Running, Dead: s.Children.Dead}
	}
	return out
}

// namespaceParam prefers the body's namespace, then ?namespace=.
func namespaceParam(r *http.Request, body string) string {
	if body != "" {
		return body
	}
	return r.URL.Query().Get("namespace")
}

func (h *HTTPServer) jobLaunchRoutes() {
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/job/{id}/periodic/force", h.jobPeriodicForce)
		h.handle(m+" /v1/job/{id}/dispatch", h.jobDispatch)
	}
}

// jobPeriodicForce answers POST /v1/job/:id/periodic/force: launch now.
func (h *HTTPServer) jobPeriodicForce(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Job.PeriodicForce(r.URL.Query().Get("namespace"), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &periodicForceResponse{EvalID: reply.EvalID, EvalCreateIndex: reply.EvalCreateIndex, Index: reply.Index}, nil
}

// periodicForceResponse is Nomad's periodic force reply (unexported in
// the api package, which reads EvalID).
type periodicForceResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	Index           uint64
}

// jobDispatch answers POST /v1/job/:id/dispatch for parameterized jobs.
func (h *HTTPServer) jobDispatch(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobDispatchRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	reply, err := h.srv.Job.Dispatch(&server.JobDispatchArgs{
		Namespace: r.URL.Query().Get("namespace"), JobID: r.PathValue("id"),
		Payload: req.Payload, Meta: req.Meta, IDPrefix: req.IdPrefixTemplate, Priority: req.Priority,
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.JobDispatchResponse{DispatchedJobID: reply.DispatchedJobID, EvalID: reply.EvalID,
		EvalCreateIndex: reply.EvalCreateIndex, JobCreateIndex: reply.Index, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}
