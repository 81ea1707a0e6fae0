package agent

import (
	"net/http"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) schedulerConfigGet(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.OperatorSchedulerGetConfiguration.On(h.srv), &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return &api.SchedulerConfigurationResponse{SchedulerConfig: apiconv.SchedulerConfigFromStructs(reply.SchedulerConfig)}, nil
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
	reply, err := server.OperatorSchedulerSetConfiguration.Call(r.Context(), h.srv, &structs.SchedulerSetConfigArgs{
		Config: *cfg, CAS: cas, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.SchedulerSetConfigurationResponse{Updated: reply.Updated, WriteMeta: api.WriteMeta{LastIndex: reply.Index}}, nil
}

// raftConfiguration answers GET /v1/operator/raft/configuration.
func (h *HTTPServer) raftConfiguration(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := server.OperatorRaftGetConfiguration.Call(r.Context(), h.srv, &structs.GenericRequest{QueryOptions: q})
	if err != nil {
		return nil, err
	}
	out := &api.RaftConfiguration{Index: reply.Index}
	for _, s := range reply.Servers {
		out.Servers = append(out.Servers, &api.RaftServer{ID: s.ID, Node: s.Node, Address: s.Address,
			Leader: s.Leader, Voter: s.Voter, RaftProtocol: s.RaftProtocol})
	}
	return out, nil
}
