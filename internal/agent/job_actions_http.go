package agent

import (
	"net/http"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// writeReply is the answer to a write that created an eval.
func writeReply(w http.ResponseWriter, r *structs.JobRegisterResponse) *api.JobRegisterResponse {
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
	if err := pathIDMatches("Target.Job", req.Target["Job"], r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.JobScale.Call(r.Context(), h.srv, &structs.JobScaleArgs{
		JobID: r.PathValue("id"), Group: req.Target["Group"], Count: req.Count, Message: req.Message, Meta: req.Meta,
		WriteRequest: writeRequestIn(r, req.Namespace),
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
	if err := pathIDMatches("JobID", req.JobID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.JobEvaluate.Call(r.Context(), h.srv, &structs.JobEvaluateArgs{
		JobID: r.PathValue("id"), WriteRequest: writeRequestIn(r, req.Namespace),
	})
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
	reply, err := server.JobRevert.Call(r.Context(), h.srv, &structs.JobRevertArgs{
		JobID: r.PathValue("id"), JobVersion: req.JobVersion, EnforcePriorVersion: req.EnforcePriorVersion,
		WriteRequest: writeRequestIn(r, req.Namespace),
	})
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
	warnings, err := checkJobContract(req.Job, false, nil)
	if err != nil {
		return nil, err
	}
	job := apiconv.JobToStructs(req.Job)
	reply, err := server.JobValidate.Call(r.Context(), h.srv, &structs.JobValidateArgs{Job: job, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	out := &api.JobValidateResponse{ValidationErrors: reply.ValidationErrors, Error: reply.Error, Warnings: warnings}
	problems, allKnown := driverProblems(req.Job)
	out.ValidationErrors = append(out.ValidationErrors, problems...)
	out.DriverConfigValidated = allKnown
	if len(problems) > 0 {
		out.Error = strings.Join(out.ValidationErrors, "; ")
	}
	return out, nil
}

// allocStop answers POST /v1/allocation/:id/stop: the alloc is migrated
// by one alloc-stop eval.
func (h *HTTPServer) allocStop(w http.ResponseWriter, r *http.Request) (any, error) {
	noDelay, err := boolParam(r, "no_shutdown_delay")
	if err != nil {
		return nil, err
	}
	reply, err := server.AllocStop.Call(r.Context(), h.srv, &structs.AllocStopArgs{AllocID: r.PathValue("id"), NoShutdownDelay: noDelay, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.AllocStopResponse{EvalID: reply.EvalID, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}

func (h *HTTPServer) jobSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.JobSummary.On(h.srv), &structs.JobSpecificRequest{JobID: id})
	return oneOf(reply.JobSummary, summaryToAPI, err, "job %q not found", id)
}

func summaryToAPI(s *structs.JobSummary) *api.JobSummary {
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

// writeRequestIn is writeRequest addressed to the body's namespace when
// the body names one.
func writeRequestIn(r *http.Request, bodyNamespace string) structs.WriteRequest {
	wr := writeRequest(r)
	if bodyNamespace != "" {
		wr.Namespace = bodyNamespace
	}
	return wr
}

// jobPeriodicForce answers POST /v1/job/:id/periodic/force: launch now.
func (h *HTTPServer) jobPeriodicForce(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.JobPeriodicForce.Call(r.Context(), h.srv, &structs.JobPeriodicForceArgs{JobID: r.PathValue("id"), WriteRequest: writeRequest(r)})
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
	if err := pathIDMatches("JobID", req.JobID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.JobDispatch.Call(r.Context(), h.srv, &structs.JobDispatchArgs{
		JobID: r.PathValue("id"), Payload: req.Payload, Meta: req.Meta, IDPrefix: req.IdPrefixTemplate,
		Priority: req.Priority, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.JobDispatchResponse{DispatchedJobID: reply.DispatchedJobID, EvalID: reply.EvalID,
		EvalCreateIndex: reply.EvalCreateIndex, JobCreateIndex: reply.JobCreateIndex, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}
