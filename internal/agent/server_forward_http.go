package agent

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/drover-project/drover/internal/server"
)

// A client-only agent answers the cluster API by forwarding each request
// to a server over its client's RPC connection (an HTTP stream on the
// yamux session, rpcwire.OpenHTTPStream), as Nomad's clients forward
// their RPCs: `drover node status -self` or any command pointed at a
// client's address works. The request goes as it came, the caller's
// token with it, and the server's agent checks that token as it checks
// its own listener's requests; streams (event stream, blocking queries,
// snapshots) pass through as they are written.

// serverDialer opens an HTTP stream to a server (rpcclient.DialHTTP).
type serverDialer func(ctx context.Context) (net.Conn, error)

// serverForwardHost is the Host of a forwarded request: the stream, not
// the name, picks the server.
const serverForwardHost = "drover-server"

// newServerForwarder returns the handler that forwards to a server.
func newServerForwarder(h *HTTPServer, dial serverDialer) http.Handler {
	transport := &http.Transport{
		DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx) },
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: serverForwardHost})
			pr.Out.Host = serverForwardHost
		},
		Transport:     transport,
		FlushInterval: -1, // streams (event stream, follow) frame by frame
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the caller went away
			}
			h.writeError(w, r, server.NewCodedError(http.StatusServiceUnavailable,
				"this agent runs no server and could not forward %s to one: %v", r.URL.Path, err))
		},
	}
}

// forwardDialer is how the agent's HTTP API reaches a server when the
// agent runs none: over the running client's RPC connection.
func (a *Agent) forwardDialer() serverDialer {
	if a.server != nil {
		return nil
	}
	return func(ctx context.Context) (net.Conn, error) {
		if a.Client() == nil || a.clientRPC == nil {
			return nil, server.NewCodedError(http.StatusServiceUnavailable, "the client has not started yet")
		}
		return a.clientRPC.DialHTTP(ctx)
	}
}
