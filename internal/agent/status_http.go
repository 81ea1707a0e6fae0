package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) statusRoutes() {
	h.handle("GET /v1/status/leader", h.statusLeader)
	h.handle("GET /v1/status/peers", h.statusPeers)
	h.handle("GET /v1/agent/self", h.agentSelf)
	h.handle("GET /v1/agent/health", h.agentHealth)
}

func (h *HTTPServer) statusLeader(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Status.Leader(r.Context(), &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return reply.Leader, nil
}

func (h *HTTPServer) statusPeers(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Status.Peers(r.Context(), &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return reply.Peers, nil
}

func (h *HTTPServer) agentSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	stats, err := h.srv.Status.RaftStats(r.Context(), &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return &api.AgentSelf{
		Config: h.info.Config,
		Member: api.AgentMember{
			Name: h.info.Name + "." + h.info.Region, Addr: h.info.RPCAddr, Status: "alive",
			Tags: map[string]string{"role": "nomad", "region": h.info.Region, "dc": h.info.Datacenter},
		},
		Stats: map[string]map[string]string{
			"nomad": {"server": "true", "leader": boolString(stats.IsLeader), "leader_addr": stats.Leader},
			"raft":  {"applied_index": uintString(stats.AppliedIndex), "term": uintString(stats.Term), "state": stats.State},
		},
	}, nil
}

// agentHealth answers 200 when the server has a leader, else 500 with the
// reason, as Nomad does, so load balancers can probe it.
func (h *HTTPServer) agentHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := h.srv.Status.Leader(r.Context(), &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	if reply.Leader == "" {
		return nil, server.NewCodedError(http.StatusInternalServerError, "{\"server\":{\"ok\":false,\"message\":\"No cluster leader\"}}")
	}
	return &api.AgentHealthResponse{Server: &api.AgentHealth{Ok: true, Message: "ok"}}, nil
}
