package agent

import (
	"net"
	"net/http"

	"github.com/drover-project/drover/internal/server"
)

// serverList is the local client's list of servers to fail over between.
type serverList interface {
	Servers() []string
	SetServers([]string) error
}

// clientServerList is the running client's server list, nil without one.
// The client is stored after its RPC client, so seeing it means clientRPC
// is set.
func (a *Agent) clientServerList() serverList {
	if a.Client() == nil || a.clientRPC == nil {
		return nil
	}
	return a.clientRPC
}

func (h *HTTPServer) agentServerRoutes() {
	h.handle("GET /v1/agent/servers", h.agentServersGet)
	for _, m := range []string{"PUT", "POST"} {
		h.handle(m+" /v1/agent/servers", h.agentServersSet)
	}
}

func (h *HTTPServer) localServerList() (serverList, error) {
	if h.clientServers != nil {
		if l := h.clientServers(); l != nil {
			return l, nil
		}
	}
	return nil, server.BadRequest("this agent runs no client: /v1/agent/servers is the client's server list")
}

// agentServersGet answers GET /v1/agent/servers (`node config -servers`):
// the RPC addresses of the servers the local client uses.
func (h *HTTPServer) agentServersGet(w http.ResponseWriter, r *http.Request) (any, error) {
	l, err := h.localServerList()
	if err != nil {
		return nil, err
	}
	return l.Servers(), nil
}

// agentServersSet answers PUT /v1/agent/servers?address=...: replace the
// local client's server list (`node config -update-servers`).
func (h *HTTPServer) agentServersSet(w http.ResponseWriter, r *http.Request) (any, error) {
	l, err := h.localServerList()
	if err != nil {
		return nil, err
	}
	addrs := r.URL.Query()["address"]
	if len(addrs) == 0 {
		return nil, server.BadRequest("address: at least one ?address= is required")
	}
	for i, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			addrs[i] = net.JoinHostPort(a, "4647")
		}
	}
	return nil, l.SetServers(addrs)
}
