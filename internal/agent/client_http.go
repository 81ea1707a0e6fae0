package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// forwardedHeader marks a request one agent forwarded to another, so the
// receiving agent answers it locally or not at all (never forwards again:
// a stale node address must not make two agents bounce a request).
const forwardedHeader = "X-Drover-Forwarded-For-Alloc"

// forwardDialTimeout bounds connecting to the node that runs an alloc; an
// unreachable node should answer 502 quickly, not hang the caller.
const forwardDialTimeout = 5 * time.Second

// clientHandlerFunc answers a /v1/client request for an alloc this
// agent's client runs.
type clientHandlerFunc func(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error)

// clientRoutes registers the /v1/client endpoints (logs, fs, stats,
// restart, signal). Every one is about one alloc: the local client
// answers when it runs the alloc, otherwise the request is forwarded to
// the agent of the node that does (see allocHandler).
func (h *HTTPServer) clientRoutes() {
	h.clientFSRoutes()
	h.clientLogRoutes()
	h.clientAllocRoutes()
	h.clientNodeRoutes()
	h.clientGCRoutes()
	h.clientCheckRoutes()
	h.clientExecRoutes()
	h.clientFSStreamRoutes()
	h.clientSnapshotRoutes()
}

// allocHandler registers fn for a pattern whose {id} is an alloc ID.
func (h *HTTPServer) allocHandler(pattern string, fn clientHandlerFunc) {
	h.handle(pattern, func(w http.ResponseWriter, r *http.Request) (any, error) {
		id := r.PathValue("id")
		if c := h.client(); c != nil && c.HasAlloc(id) {
			return fn(w, r, c, id)
		}
		return nil, h.forwardToAllocNode(w, r, id)
	})
}

// forwardToAllocNode proxies r to the HTTP address the alloc's node
// advertised. Only a server knows where allocs run, so a client-only
// agent (or a request forwarded already) answers 404.
func (h *HTTPServer) forwardToAllocNode(w http.ResponseWriter, r *http.Request, allocID string) error {
	if h.srv == nil || r.Header.Get(forwardedHeader) != "" {
		return server.NotFound("allocation %q is not running on this client", allocID)
	}
	addr, err := h.allocNodeAddr(r, allocID)
	if err != nil {
		return err
	}
	h.proxy(addr, "allocation "+allocID).ServeHTTP(w, r)
	return nil
}

// allocNodeAddr finds the advertised HTTP address of the alloc's node.
func (h *HTTPServer) allocNodeAddr(r *http.Request, allocID string) (string, error) {
	// The request was authorized against the alloc's namespace; finding
	// its node is the agent's own business (InternalToken).
	// Stale: answered by this server, which knows its own InternalToken.
	internal := structs.QueryOptions{AuthToken: h.srv.Auth().InternalToken(), AllowStale: true}
	allocReply, err := server.AllocGetAlloc.Call(r.Context(), h.srv, &structs.AllocSpecificRequest{AllocID: allocID, QueryOptions: internal})
	if err != nil {
		return "", err
	}
	alloc := allocReply.Alloc
	if alloc == nil {
		return "", server.NotFound("allocation %q not found", allocID)
	}
	if c := h.client(); c != nil && c.NodeID() == alloc.NodeID {
		// Ours, but the client does not run it (not started yet, or
		// already collected): forwarding would only come back here.
		return "", server.NotFound("allocation %q is not running on this client (node %s)", allocID, alloc.NodeID)
	}
	nodeReply, err := server.NodeGetNode.Call(r.Context(), h.srv, &structs.NodeSpecificRequest{NodeID: alloc.NodeID, QueryOptions: internal})
	if err != nil {
		return "", err
	}
	node := nodeReply.Node
	if node == nil {
		return "", server.NewCodedError(http.StatusBadGateway, "allocation %q: its node %s is not registered", allocID, alloc.NodeID)
	}
	if node.HTTPAddr == "" {
		return "", server.NewCodedError(http.StatusBadGateway,
			"allocation %q runs on node %s (%s), which advertises no HTTP address", allocID, node.Name, node.ID)
	}
	return node.HTTPAddr, nil
}

// proxy builds the reverse proxy to one node's agent, for a request about
// what (e.g. "allocation <id>"). FlushInterval -1 passes every write
// through at once, which log streams need.
func (h *HTTPServer) proxy(addr, what string) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = h.forwardScheme
			pr.Out.URL.Host = addr
			pr.Out.Host = addr
			pr.Out.Header.Set(forwardedHeader, what)
		},
		Transport:     h.forwardTransport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return // the caller went away; nobody to answer
			}
			msg := fmt.Sprintf("%s: forwarding to its node's agent at %s failed: %v", what, addr, err)
			h.log.Warn("http: forward failed", "path", r.URL.Path, "error", msg)
			http.Error(w, msg, http.StatusBadGateway)
		},
	}
}

// forwardTransport is shared by every forward so connections to a node's
// agent are reused.
var forwardTransport http.RoundTripper = &http.Transport{
	Proxy:               nil, // agents talk directly, whatever HTTP_PROXY says
	DialContext:         (&net.Dialer{Timeout: forwardDialTimeout, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 8,
	IdleConnTimeout:     90 * time.Second,
}
