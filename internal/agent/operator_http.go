package agent

import (
	"net/http"
	"strconv"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) operatorRoutes() {
	h.handle("GET /v1/operator/scheduler/configuration", h.schedulerConfigGet)
	h.handle("PUT /v1/operator/scheduler/configuration", h.schedulerConfigSet)
	h.handle("POST /v1/operator/scheduler/configuration", h.schedulerConfigSet)
	h.handle("GET /v1/operator/raft/configuration", h.raftConfiguration)
}

func (h *HTTPServer) schedulerConfigGet(w http.ResponseWriter, r *http.Request) (any, error) {
	var cfg *structs.SchedulerConfiguration
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		cfg, err = st.SchedulerConfig(ws)
		return st.Index("scheduler_config"), err
	}); err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = structs.DefaultSchedulerConfiguration()
	}
	return &api.SchedulerConfigurationResponse{SchedulerConfig: apiconv.SchedulerConfigFromStructs(cfg)}, nil
}

// schedulerConfigSet answers PUT /v1/operator/scheduler/configuration;
// with ?cas=N it applies only if the stored ModifyIndex is N.
func (h *HTTPServer) schedulerConfigSet(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.SchedulerConfiguration
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	cfg := apiconv.SchedulerConfigToStructs(&in)
	cas := r.URL.Query().Has("cas")
	if cas {
		idx, err := strconv.ParseUint(r.URL.Query().Get("cas"), 10, 64)
		if err != nil {
			return nil, server.BadRequest("cas: %q is not an index", r.URL.Query().Get("cas"))
		}
		cfg.ModifyIndex = idx
	}
	updated, index, err := h.srv.Operator.SchedulerSetConfiguration(cfg, cas)
	if err != nil {
		return nil, err
	}
	setIndex(w, index)
	return &api.SchedulerSetConfigurationResponse{Updated: updated, WriteMeta: api.WriteMeta{LastIndex: index}}, nil
}

// raftConfiguration answers GET /v1/operator/raft/configuration.
func (h *HTTPServer) raftConfiguration(w http.ResponseWriter, r *http.Request) (any, error) {
	peers, err := h.srv.Status.Peers()
	if err != nil {
		return nil, err
	}
	leader := h.srv.Leader()
	out := &api.RaftConfiguration{}
	for _, p := range peers {
		out.Servers = append(out.Servers, &api.RaftServer{ID: p, Node: h.info.Name, Address: p, Leader: p == leader, Voter: true, RaftProtocol: "3"})
	}
	return out, nil
}
