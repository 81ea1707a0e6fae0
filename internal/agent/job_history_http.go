package agent

import (
	"net/http"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// jobScaleStatus answers GET /v1/job/:id/scale.
func (h *HTTPServer) jobScaleStatus(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.JobScaleStatus.On(h.srv), &structs.JobSpecificRequest{JobID: id})
	if err != nil {
		return nil, err
	}
	s := reply.Status
	if s == nil {
		return nil, server.NotFound("job %q not found", id)
	}
	out := &api.JobScaleStatusResponse{JobID: s.JobID, Namespace: s.Namespace, JobCreateIndex: s.JobCreateIndex,
		JobModifyIndex: s.JobModifyIndex, JobStopped: s.JobStopped, TaskGroups: map[string]api.TaskGroupScaleStatus{}}
	for name, g := range s.TaskGroups {
		tg := api.TaskGroupScaleStatus{Desired: g.Desired, Placed: g.Placed, Running: g.Running,
			Healthy: g.Healthy, Unhealthy: g.Unhealthy, Events: []api.ScalingEvent{}}
		for _, e := range g.Events {
			tg.Events = append(tg.Events, scalingEventToAPI(e))
		}
		out.TaskGroups[name] = tg
	}
	return out, nil
}

func scalingEventToAPI(e *structs.ScalingEvent) api.ScalingEvent {
	out := api.ScalingEvent{Count: e.Count, PreviousCount: e.PreviousCount, Error: e.Error, Message: e.Message,
		Meta: e.Meta, Time: uint64(e.Time), CreateIndex: e.CreateIndex}
	if e.EvalID != "" {
		out.EvalID = &e.EvalID
	}
	return out
}

// jobSubmission answers GET /v1/job/:id/submission?version=N.
func (h *HTTPServer) jobSubmission(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	v := r.URL.Query().Get("version")
	version, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, server.BadRequest("version: %q is not a job version", v)
	}
	reply, err := server.JobGetSubmission.Call(r.Context(), h.srv, &structs.JobSubmissionRequest{JobID: r.PathValue("id"), Version: version, QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	s := reply.Submission
	if s == nil {
		return nil, server.NotFound("job %q version %d has no submission", r.PathValue("id"), version)
	}
	return &api.JobSubmission{Source: s.Source, Format: s.Format, VariableFlags: s.VariableFlags, Variables: s.Variables}, nil
}

func submissionToStructs(s *api.JobSubmission) *structs.JobSubmission {
	if s == nil {
		return nil
	}
	return &structs.JobSubmission{Source: s.Source, Format: s.Format, VariableFlags: s.VariableFlags, Variables: s.Variables}
}

// jobStable answers PUT /v1/job/:id/stable.
func (h *HTTPServer) jobStable(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobStabilityRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.JobID != "" && req.JobID != r.PathValue("id") {
		return nil, server.BadRequest("JobID: does not match the job ID %q in the URL", r.PathValue("id"))
	}
	reply, err := server.JobStable.Call(r.Context(), h.srv, &structs.JobStabilityArgs{JobID: r.PathValue("id"), Version: req.JobVersion,
		Stable: req.Stable, WriteRequest: writeRequestIn(r, req.Namespace)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.JobStabilityResponse{JobModifyIndex: reply.JobModifyIndex}, nil
}

// jobTag answers PUT /v1/job/:id/versions/:name/tag.
func (h *HTTPServer) jobTag(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.TagVersionRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		return nil, err
	}
	reply, err := server.JobTagVersion.Call(r.Context(), h.srv, &structs.JobTagArgs{JobID: r.PathValue("id"), Name: r.PathValue("name"),
		Version: req.Version, Latest: req.Latest, Description: req.Description, WriteRequest: writeRequestIn(r, req.Namespace)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// jobUntag answers DELETE /v1/job/:id/versions/:name/tag.
func (h *HTTPServer) jobUntag(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.JobTagVersion.Call(r.Context(), h.srv, &structs.JobTagArgs{JobID: r.PathValue("id"), Name: r.PathValue("name"),
		Untag: true, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
