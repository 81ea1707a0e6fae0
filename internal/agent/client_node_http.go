package agent

import (
	"bytes"
	"io"
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/hoststats"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Node-level client endpoints (/v1/client/stats, ...) answer for the node
// named by ?node_id= (default: this agent's own client). A server agent
// forwards a request for another node to that node's agent.

type clientNodeHandlerFunc func(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error)

func (h *HTTPServer) clientNodeRoutes() {
	h.nodeHandler("GET /v1/client/stats", h.clientHostStats)
	h.nodeHandler("GET /v1/client/metadata", h.clientMetaRead)
	h.handle("POST /v1/client/metadata", h.clientMetaApply)
}

// nodeHandler registers fn for a node-level client endpoint.
func (h *HTTPServer) nodeHandler(pattern string, fn clientNodeHandlerFunc) {
	h.handle(pattern, func(w http.ResponseWriter, r *http.Request) (any, error) {
		return h.onNode(w, r, r.URL.Query().Get("node_id"), fn)
	})
}

// onNode runs fn on this agent's client when it is nodeID's (or nodeID is
// empty), else forwards the request to nodeID's agent.
func (h *HTTPServer) onNode(w http.ResponseWriter, r *http.Request, nodeID string, fn clientNodeHandlerFunc) (any, error) {
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
	addr, err := h.nodeHTTPAddr(r, nodeID)
	if err != nil {
		return nil, err
	}
	h.proxy(addr, "node "+nodeID).ServeHTTP(w, r)
	return nil, nil
}

// nodeHTTPAddr is the HTTP address a node's agent advertised.
func (h *HTTPServer) nodeHTTPAddr(r *http.Request, nodeID string) (string, error) {
	reply, err := server.NodeGetNode.Call(r.Context(), h.srv, &structs.NodeSpecificRequest{NodeID: nodeID,
		QueryOptions: structs.QueryOptions{AuthToken: h.srv.Auth().InternalToken(), AllowStale: true}}) // routing only; the request was authorized
	if err != nil {
		return "", err
	}
	node := reply.Node
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

// clientMetaRead answers GET /v1/client/metadata: the node's metadata,
// merged and split into dynamic and static.
func (h *HTTPServer) clientMetaRead(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error) {
	return nodeMetaToAPI(c.NodeMeta()), nil
}

// clientMetaApply answers POST /v1/client/metadata: set or unset (null)
// dynamic keys on the node named in the body (default: this agent's).
func (h *HTTPServer) clientMetaApply(w http.ResponseWriter, r *http.Request) (any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBodyBytes))
	if err != nil {
		return nil, bodyError(err)
	}
	var req api.NodeMetaApplyRequest
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // for a forward
	return h.onNode(w, r, req.NodeID, func(w http.ResponseWriter, r *http.Request, c *client.Client) (any, error) {
		meta, err := c.ApplyNodeMeta(req.Meta)
		if err != nil {
			return nil, clientError(err)
		}
		return nodeMetaToAPI(meta), nil
	})
}

func nodeMetaToAPI(m *client.NodeMeta) *api.NodeMetaResponse {
	return &api.NodeMetaResponse{Meta: m.Meta, Dynamic: m.Dynamic, Static: m.Static}
}
