package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
)

func (h *HTTPServer) statusRoutes() {
	h.handle("GET /v1/status/leader", h.statusLeader)
	h.handle("GET /v1/status/peers", h.statusPeers)
	h.handle("GET /v1/agent/self", h.agentSelf)
	h.handle("GET /v1/agent/health", h.agentHealth)
}

func (h *HTTPServer) statusLeader(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.srv.Status.Leader(), nil
}

func (h *HTTPServer) statusPeers(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.srv.Status.Peers()
}

func (h *HTTPServer) agentSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	leader := h.srv.Leader()
	return &api.AgentSelf{
		Config: h.info.Config,
		Member: api.AgentMember{
			Name: h.info.Name + "." + h.info.Region, Addr: h.info.RPCAddr, Status: "alive",
			Tags: map[string]string{"role": "nomad", "region": h.info.Region, "dc": h.info.Datacenter},
		},
		Stats: map[string]map[string]string{
			"nomad": {"server": "true", "leader": boolString(leader == h.srv.Config().RaftAddr), "leader_addr": leader},
			"raft":  {"applied_index": uintString(h.srv.State().LatestIndex())},
		},
	}, nil
}

// agentHealth answers 200 when the server has a leader, else 500 with the
// reason, as Nomad does, so load balancers can probe it.
func (h *HTTPServer) agentHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	if h.srv.Leader() == "" {
		return nil, server.NewCodedError(http.StatusInternalServerError, "{\"server\":{\"ok\":false,\"message\":\"No cluster leader\"}}")
	}
	return &api.AgentHealthResponse{Server: &api.AgentHealth{Ok: true, Message: "ok"}}, nil
}
