package agent

import (
	"net/http"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// agentRoutes are served by every agent, server or client-only.
func (h *HTTPServer) agentRoutes() {
	h.handle("GET /v1/agent/self", h.agentSelf)
	h.handle("GET /v1/agent/health", h.agentHealth)
}

func (h *HTTPServer) statusLeader(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.StatusLeader.Call(r.Context(), h.srv, &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return reply.Leader, nil
}

func (h *HTTPServer) statusPeers(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.StatusPeers.Call(r.Context(), h.srv, &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	return reply.Peers, nil
}

// agentSelf answers GET /v1/agent/self: the agent's config, member entry
// and stats: nomad and raft on a server, client (with node_id, which every
// -self flag of the CLI reads) on an agent running a client.
func (h *HTTPServer) agentSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	self := &api.AgentSelf{
		Config: h.info.Config,
		Member: api.AgentMember{
			Name: h.info.Name + "." + h.info.Region, Addr: h.info.RPCAddr, Status: "alive",
			Tags: map[string]string{"role": "nomad", "region": h.info.Region, "dc": h.info.Datacenter},
		},
		Stats: map[string]map[string]string{"nomad": {"server": "false"}},
	}
	self.Stats["runtime"] = runtimeStats()
	if h.srv != nil {
		if err := h.serverStats(r, self.Stats); err != nil {
			return nil, err
		}
	}
	if c := h.client(); c != nil {
		self.Stats["client"] = c.Stats()
		self.Stats["client"]["known_servers"] = strings.Join(h.info.ClientServers, ",")
	}
	return self, nil
}

// agentHealth answers 200 when the server has a leader, else 500 with the
// reason, as Nomad does, so load balancers can probe it.
func (h *HTTPServer) agentHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	if h.srv == nil {
		if h.client() == nil {
			return nil, server.NewCodedError(http.StatusInternalServerError, "{\"client\":{\"ok\":false,\"message\":\"client not started\"}}")
		}
		return &api.AgentHealthResponse{Client: &api.AgentHealth{Ok: true, Message: "ok"}}, nil
	}
	reply, err := server.StatusLeader.Call(r.Context(), h.srv, &structs.GenericRequest{})
	if err != nil {
		return nil, err
	}
	if reply.Leader == "" {
		return nil, server.NewCodedError(http.StatusInternalServerError, "{\"server\":{\"ok\":false,\"message\":\"No cluster leader\"}}")
	}
	out := &api.AgentHealthResponse{Server: &api.AgentHealth{Ok: true, Message: "ok"}}
	if h.client() != nil {
		out.Client = &api.AgentHealth{Ok: true, Message: "ok"}
	}
	return out, nil
}
