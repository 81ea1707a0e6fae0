package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/hoststats"
	"github.com/drover-project/drover/internal/server"
)

// Node-level client endpoints (/v1/client/stats, ...) answer for the node
// named by ?node_id= (default: this agent's own client). A server agent
// forwards a request for another node to that node's agent.

type clientNodeHandlerFunc func(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error)

func (h *HTTPServer) clientNodeRoutes() {
	h.nodeHandler("GET /v1/client/stats", h.clientHostStats)
}

// nodeHandler registers fn for a node-level client endpoint.
func (h *HTTPServer) nodeHandler(pattern string, fn clientNodeHandlerFunc) {
	h.handle(pattern, func(w http.ResponseWriter, r *http.Request) (any, error) {
		nodeID := r.URL.Query().Get("node_id")
		c := h.client()
		if c != nil && (nodeID == "" || nodeID == c.NodeID()) {
			return fn(w, r, c)
		}
		if nodeID == "" {
			return nil, server.BadRequest("node_id: this agent runs no client; name the node to ask")
		}
		if h.srv == nil || r.Header.Get(forwardedHeader) != "" {
			return nil, server.NotFound("node %q is not this agent's client", nodeID)
		}
		addr, err := h.nodeHTTPAddr(nodeID)
		if err != nil {
			return nil, err
		}
		h.proxy(addr, "node "+nodeID).ServeHTTP(w, r)
		return nil, nil
	})
}

// nodeHTTPAddr is the HTTP address a node's agent advertised.
func (h *HTTPServer) nodeHTTPAddr(nodeID string) (string, error) {
	node, err := h.srv.State().NodeByID(nil, nodeID)
	if err != nil {
		return "", err
	}
	if node == nil {
		return "", server.NotFound("node %q not found", nodeID)
	}
	if node.HTTPAddr == "" {
		return "", server.NewCodedError(http.StatusBadGateway, "node %s (%s) advertises no HTTP address", node.Name, node.ID)
	}
	return node.HTTPAddr, nil
}

// clientHostStats answers GET /v1/client/stats: the host's CPU per core,
// memory, disks and uptime.
func (h *HTTPServer) clientHostStats(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error) {
	s, err := c.HostStats()
	if err != nil {
		return nil, err
	}
	return hostStatsToAPI(s), nil
}

func hostStatsToAPI(s *hoststats.Stats) *api.HostStats {
	out := &api.HostStats{
		Memory: &api.HostMemoryStats{Total: s.Memory.Total, Available: s.Memory.Available, Used: s.Memory.Used, Free: s.Memory.Free},
		Uptime: s.Uptime, CPUTicksConsumed: s.CPUTicksConsumed,
	}
	for _, core := range s.CPU {
		out.CPU = append(out.CPU, &api.HostCPUStats{CPU: core.Name, User: core.User, System: core.System, Idle: core.Idle})
	}
	for _, d := range s.Disks {
		out.DiskStats = append(out.DiskStats, diskStatsToAPI(d))
	}
	if s.AllocDir != nil {
		out.AllocDirStats = diskStatsToAPI(*s.AllocDir)
	}
	return out
}

func diskStatsToAPI(d hoststats.Disk) *api.HostDiskStats {
	return &api.HostDiskStats{Device: d.Device, Mountpoint: d.Mountpoint, Size: d.Size, Used: d.Used,
		Available: d.Available, UsedPercent: d.UsedPercent, InodesUsedPercent: d.InodesUsedPercent}
}
