package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func deploymentsToAPI(ds []*structs.Deployment) []*api.Deployment {
	out := make([]*api.Deployment, 0, len(ds))
	for _, d := range ds {
		out = append(out, apiconv.DeploymentFromStructs(d))
	}
	return out
}

func (h *HTTPServer) deploymentList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.DeploymentList.On(h.srv), &structs.DeploymentListRequest{})
	if err != nil {
		return nil, err
	}
	return deploymentsToAPI(reply.Deployments), nil
}

func (h *HTTPServer) deploymentGet(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.DeploymentGetDeployment.On(h.srv), &structs.DeploymentSpecificRequest{DeploymentID: id})
	return oneOf(reply.Deployment, apiconv.DeploymentFromStructs, err, "deployment %q not found", id)
}

func (h *HTTPServer) deploymentAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.DeploymentAllocations.On(h.srv), &structs.DeploymentSpecificRequest{DeploymentID: r.PathValue("id")})
	if err != nil {
		return nil, err
	}
	return allocStubs(reply.Allocations), nil
}

func (h *HTTPServer) jobDeployments(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.JobDeployments.On(h.srv), &structs.JobSpecificRequest{JobID: r.PathValue("id")})
	if err != nil {
		return nil, err
	}
	return deploymentsToAPI(reply.Deployments), nil
}

// jobLatestDeployment answers GET /v1/job/:id/deployment: the newest
// deployment, or JSON null when the job has none (as Nomad does).
func (h *HTTPServer) jobLatestDeployment(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.JobLatestDeployment.On(h.srv), &structs.JobSpecificRequest{JobID: r.PathValue("id")})
	if err != nil {
		return nil, err
	}
	if reply.Deployment == nil {
		return jsonNull{}, nil
	}
	return apiconv.DeploymentFromStructs(reply.Deployment), nil
}

// jsonNull encodes as null.
type jsonNull struct{}

func (jsonNull) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func deploymentReply(w http.ResponseWriter, r *structs.DeploymentUpdateResponse) *api.DeploymentUpdateResponse {
	setIndex(w, r.Index)
	return &api.DeploymentUpdateResponse{EvalID: r.EvalID, EvalCreateIndex: r.EvalCreateIndex,
		DeploymentModifyIndex: r.DeploymentModifyIndex, RevertedJobVersion: r.RevertedJobVersion, WriteMeta: api.WriteMeta{LastIndex: r.Index}}
}

// pathIDMatches refuses a body that names another object than the path:
// Nomad answers 400 when a body's ID differs from the URL's, and using
// either silently would act on an object the caller did not mean. An
// empty body ID means the path's.
func pathIDMatches(field, bodyID, pathID string) error {
	if bodyID != "" && bodyID != pathID {
		return server.BadRequest("%s: %q does not match the path's %q", field, bodyID, pathID)
	}
	return nil
}

func (h *HTTPServer) deploymentPromote(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.DeploymentPromoteRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if err := pathIDMatches("DeploymentID", req.DeploymentID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.DeploymentPromote.Call(r.Context(), h.srv, &structs.DeploymentPromoteArgs{
		DeploymentID: r.PathValue("id"), All: req.All, Groups: req.Groups, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}

func (h *HTTPServer) deploymentFail(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.DeploymentFail.Call(r.Context(), h.srv, &structs.DeploymentFailArgs{
		DeploymentID: r.PathValue("id"), WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}

func (h *HTTPServer) deploymentPause(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.DeploymentPauseRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if err := pathIDMatches("DeploymentID", req.DeploymentID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.DeploymentPause.Call(r.Context(), h.srv, &structs.DeploymentPauseArgs{
		DeploymentID: r.PathValue("id"), Pause: req.Pause, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}

// deploymentAllocHealth answers PUT /v1/deployment/allocation-health/:id:
// the operator's health verdict on a deployment's allocs, for groups with
// `update { health_check = "manual" }`.
func (h *HTTPServer) deploymentAllocHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.DeploymentAllocHealthRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if err := pathIDMatches("DeploymentID", req.DeploymentID, r.PathValue("id")); err != nil {
		return nil, err
	}
	reply, err := server.DeploymentAllocHealth.Call(r.Context(), h.srv, &structs.DeploymentAllocHealthArgs{
		DeploymentID: r.PathValue("id"), HealthyAllocationIDs: req.HealthyAllocationIDs,
		UnhealthyAllocationIDs: req.UnhealthyAllocationIDs, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}

// deploymentUnblock answers PUT /v1/deployment/unblock/:id (`deployment
// unblock`). Only a multiregion deployment waiting for its peer regions is
// ever blocked, and Drover runs no multiregion jobs, so like a Nomad
// server asked about a deployment that is not blocked it refuses: 400
// naming the deployment's status (404 when there is no such deployment).
func (h *HTTPServer) deploymentUnblock(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.DeploymentUnblock.Call(r.Context(), h.srv, &structs.DeploymentUnblockArgs{DeploymentID: r.PathValue("id"), WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}
