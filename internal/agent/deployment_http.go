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

func (h *HTTPServer) deploymentRoutes() {
	h.handle("GET /v1/deployments", h.deploymentList)
	h.handle("GET /v1/deployment/{id}", h.deploymentGet)
	h.handle("GET /v1/deployment/allocations/{id}", h.deploymentAllocations)
	h.handle("GET /v1/job/{id}/deployments", h.jobDeployments)
	h.handle("GET /v1/job/{id}/deployment", h.jobLatestDeployment)
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/deployment/promote/{id}", h.deploymentPromote)
		h.handle(m+" /v1/deployment/fail/{id}", h.deploymentFail)
		h.handle(m+" /v1/deployment/pause/{id}", h.deploymentPause)
	}
}

func deploymentsToAPI(ds []*structs.Deployment) []*api.Deployment {
	out := make([]*api.Deployment, 0, len(ds))
	for _, d := range ds {
		out = append(out, apiconv.DeploymentFromStructs(d))
	}
	return out
}

func (h *HTTPServer) deploymentList(w http.ResponseWriter, r *http.Request) (any, error) {
	lo, err := parseList(r)
	if err != nil {
		return nil, err
	}
	var ds []*structs.Deployment
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		ds, err = st.Deployments(ws, q.Namespace)
		return st.Index("deployment"), err
	}); err != nil {
		return nil, err
	}
	var matching []*structs.Deployment
	for _, d := range ds {
		if len(d.ID) >= len(lo.Prefix) && d.ID[:len(lo.Prefix)] == lo.Prefix {
			matching = append(matching, d)
		}
	}
	return paginate(w, deploymentsToAPI(matching), func(d *api.Deployment) string { return d.ID }, lo)
}

func (h *HTTPServer) deploymentGet(w http.ResponseWriter, r *http.Request) (any, error) {
	d, err := readOne(h, w, r, "deployment", "deployment", func(_ server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (*structs.Deployment, error) {
		return st.DeploymentByID(ws, r.PathValue("id"))
	}, func(d *structs.Deployment) uint64 { return d.ModifyIndex })
	if err != nil {
		return nil, err
	}
	return apiconv.DeploymentFromStructs(d), nil
}

func (h *HTTPServer) deploymentAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	var allocs []*structs.Allocation
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		allocs, err = st.AllocsByDeployment(ws, r.PathValue("id"))
		return st.Index("allocs"), err
	}); err != nil {
		return nil, err
	}
	return allocStubs(allocs), nil
}

func (h *HTTPServer) jobDeployments(w http.ResponseWriter, r *http.Request) (any, error) {
	var ds []*structs.Deployment
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		ds, err = st.DeploymentsByJobID(ws, q.Namespace, r.PathValue("id"))
		return st.Index("deployment"), err
	}); err != nil {
		return nil, err
	}
	return deploymentsToAPI(ds), nil
}

// jobLatestDeployment answers GET /v1/job/:id/deployment: the newest
// deployment, or JSON null when the job has none (as Nomad does).
func (h *HTTPServer) jobLatestDeployment(w http.ResponseWriter, r *http.Request) (any, error) {
	var d *structs.Deployment
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		d, err = st.LatestDeploymentByJobID(ws, q.Namespace, r.PathValue("id"))
		return st.Index("deployment"), err
	}); err != nil {
		return nil, err
	}
	if d == nil {
		return jsonNull{}, nil
	}
	return apiconv.DeploymentFromStructs(d), nil
}

// jsonNull encodes as null.
type jsonNull struct{}

func (jsonNull) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func deploymentReply(w http.ResponseWriter, r *server.DeploymentReply) *api.DeploymentUpdateResponse {
	setIndex(w, r.Index)
	return &api.DeploymentUpdateResponse{EvalID: r.EvalID, EvalCreateIndex: r.EvalCreateIndex,
		DeploymentModifyIndex: r.Index, WriteMeta: api.WriteMeta{LastIndex: r.Index}}
}

func (h *HTTPServer) deploymentPromote(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.DeploymentPromoteRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	reply, err := h.srv.Deployment.Promote(r.PathValue("id"), req.All, req.Groups)
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}

func (h *HTTPServer) deploymentFail(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Deployment.Fail(r.PathValue("id"))
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
	reply, err := h.srv.Deployment.Pause(r.PathValue("id"), req.Pause)
	if err != nil {
		return nil, err
	}
	return deploymentReply(w, reply), nil
}
