package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/telemetry"
)

// MaxRequestBodyBytes bounds request bodies; larger ones get 413.
const MaxRequestBodyBytes = 8 << 20

// AgentInfo is what /v1/agent/self reports about this agent.
type AgentInfo struct {
	Name       string
	Region     string
	Datacenter string
	HTTPAddr   string
	RPCAddr    string
	Config     map[string]any
	// ClientServers are the servers the local client talks to, if it runs.
	ClientServers []string
}

// HTTPServer serves the /v1 API of one agent.
type HTTPServer struct {
	srv    *server.Server        // nil on a client-only agent
	client func() *client.Client // the local client, nil until (or unless) it runs
	info   AgentInfo
	log    *slog.Logger
	mux    *http.ServeMux

	// streamsClosed is closed by CloseStreams, ending event streams
	// (which never finish on their own) of an embedder without the
	// agent's shutdown context.
	streamsClosed chan struct{}
	closeStreams  sync.Once

	// metrics holds the agent's metrics, HTTP timings included.
	metrics *telemetry.Metrics

	// logs feeds /v1/agent/monitor; debug enables /v1/agent/pprof.
	logs  *logHub
	debug bool

	// clientServers reaches the local client's server list (`node config
	// -servers`); nil, or a nil result, when no client runs.
	clientServers func() serverList

	// remoteACL resolves tokens through the servers' RPC on an agent
	// without a server (nil: such an agent refuses every token).
	remoteACL func(ctx context.Context, secret string) (*acl.ACL, error)
	// toServer forwards the cluster API to a server on an agent without
	// one (server_forward_http.go); nil on a server agent.
	toServer http.Handler
	// methodChecked holds the route patterns ("GET /v1/jobs") whose
	// handler is a call of a registered server method, by method name:
	// that call checks the caller, so the route check skips them.
	methodChecked map[string]string
	// routeChecksOff skips the route checks, leaving the endpoints' own
	// (tests prove each layer denies alone).
	routeChecksOff atomic.Bool

	// forwardScheme and forwardTransport reach other agents' HTTP API
	// (https with tls { http = true }).
	forwardScheme    string
	forwardTransport http.RoundTripper
	cpuSamples       *sampleCache // last CPU sample per task, for alloc stats rates
	stubs            stubCaches   // list stubs' JSON, encoded once per state object
	replies          *replyCache  // whole list replies by request shape (list_reply_cache.go)
	metricSamples    *sampleCache // the same, for the per-alloc CPU percent gauges
	// metricsOff are the agent's telemetry switches turned off
	// (prometheus_metrics, publish_allocation_metrics,
	// publish_node_metrics = false); the zero value publishes everything.
	metricsOff metricsOff
	// uiOff is the agent's ui { enabled = false }: /ui answers 404.
	uiOff bool
	// remoteExecOff is client { disable_remote_exec = true }: alloc exec
	// and task actions on this client's allocs answer 403.
	remoteExecOff bool
	// aclEnabled is the agent's acl { enabled }: the Task API of a
	// client-only agent needs it (task_api.go).
	aclEnabled bool
	// responseHeaders go on every response (http_api_response_headers).
	responseHeaders map[string]string
}

// metricsOff says which metric outputs the agent's telemetry block
// turned off.
type metricsOff struct {
	prometheus, allocs, node bool
}

// CloseStreams ends every open event stream and refuses new ones.
func (h *HTTPServer) CloseStreams() {
	h.closeStreams.Do(func() { close(h.streamsClosed) })
}

// NewHTTPServer returns the API handler for an agent's server (may be nil)
// and client (reached through localClient, which may return nil).
func NewHTTPServer(srv *server.Server, localClient func() *client.Client, info AgentInfo, log *slog.Logger) *HTTPServer {
	if localClient == nil {
		localClient = func() *client.Client { return nil }
	}
	h := &HTTPServer{srv: srv, client: localClient, info: info, log: log, mux: http.NewServeMux(), logs: newLogHub(),
		forwardScheme: "http", forwardTransport: forwardTransport,
		cpuSamples: newSampleCache(), metricSamples: newSampleCache(), stubs: newStubCaches(), replies: newReplyCache(replyCacheBytes), streamsClosed: make(chan struct{}), methodChecked: map[string]string{}}
	h.setupMetrics()
	h.routes()
	return h
}

// ServeHTTP implements http.Handler.
// Every request passes the ACL check of its route first (acl_authz.go).
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range h.responseHeaders {
		w.Header().Set(k, v)
	}
	if !h.routeChecksOff.Load() {
		var err error
		if r, err = h.authorizeRequest(r); err != nil {
			h.writeError(w, r, err)
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// handlerFunc answers a request with an object to encode as JSON, or an error.
type handlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

// handle registers fn for a pattern such as "GET /v1/jobs".
func (h *HTTPServer) handle(pattern string, fn handlerFunc) {
	h.mux.HandleFunc(pattern, h.wrap(fn))
}

// handleWrite registers fn for PUT and for POST of path: Nomad takes
// either method for every write.
func (h *HTTPServer) handleWrite(path string, fn handlerFunc) {
	h.handle("PUT "+path, fn)
	h.handle("POST "+path, fn)
}

// wrap turns a handlerFunc into an http.HandlerFunc: errors become their
// status code with a plain-text message (as Nomad answers), results JSON.
func (h *HTTPServer) wrap(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		defer func() {
			h.metrics.HTTPRequest.WithLabelValues(r.Method, routeLabel(r)).Observe(telemetry.Ms(time.Since(start)))
		}()
		out, err := fn(w, r)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		if out == nil {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if list, ok := out.(jsonList); ok {
			list.write(w, r, h.log)
			return
		}
		enc := json.NewEncoder(w)
		if _, pretty := r.URL.Query()["pretty"]; pretty {
			enc.SetIndent("", "    ")
		}
		if err := enc.Encode(out); err != nil {
			h.log.Debug("http: write response", "path", r.URL.Path, "error", err)
		}
	}
}

func (h *HTTPServer) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := server.ErrorCode(err)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		code = http.StatusRequestEntityTooLarge
		err = fmt.Errorf("request body larger than %d bytes", tooBig.Limit)
	}
	if code >= 500 {
		h.log.Error("http: request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	if server.IsDiskFull(err) {
		// Whatever path it came by, a full disk's error names the
		// server's files (logged above); the caller gets the plain text.
		err = errors.New(server.DiskFullMessage)
	}
	http.Error(w, err.Error(), code)
}

// decodeBody decodes a JSON request body into out, strictly: unknown
// fields, trailing data and oversize bodies are errors naming the problem.
// A bare null leaves out untouched, as encoding/json does for a plain
// struct, without calling out's UnmarshalJSON: some of the API's own
// (api.ACLToken's) dereference nil on it. A panic in any other custom
// decoder is a 400 too, not a dropped connection.
func decodeBody(w http.ResponseWriter, r *http.Request, out any) (err error) {
	body := bufio.NewReader(http.MaxBytesReader(w, r.Body, MaxRequestBodyBytes))
	if isNullBody(body) {
		out = new(any)
	}
	defer func() {
		if p := recover(); p != nil {
			err = server.BadRequest("request body: cannot be decoded: %v", p)
		}
	}()
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return server.BadRequest("request body: unexpected data after the JSON object")
	}
	return nil
}

// isNullBody reports whether the body's first JSON value is null (after
// leading whitespace, which it consumes).
func isNullBody(body *bufio.Reader) bool {
	for {
		b, err := body.Peek(1)
		if err != nil || !strings.ContainsRune(" \t\r\n", rune(b[0])) {
			break
		}
		_, _ = body.ReadByte()
	}
	head, _ := body.Peek(4)
	return string(head) == "null"
}

// bodyError explains a JSON decoding failure, naming the field or offset.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return err
	case errors.Is(err, io.EOF):
		return server.BadRequest("request body: empty, expected a JSON object")
	case errors.As(err, &syntax):
		return server.BadRequest("request body: malformed JSON at offset %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		return server.BadRequest("request body: field %q: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return server.BadRequest("request body: unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return server.BadRequest("request body: %v", err)
}

// setMeta writes the query metadata headers Nomad's clients read.
func setMeta(w http.ResponseWriter, m server.QueryMeta) {
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(m.Index, 10))
	w.Header().Set("X-Nomad-KnownLeader", strconv.FormatBool(m.KnownLeader))
	w.Header().Set("X-Nomad-LastContact", strconv.FormatInt(m.LastContact.Milliseconds(), 10))
	if m.NextToken != "" {
		w.Header().Set("X-Nomad-NextToken", m.NextToken)
	}
}

// setIndex writes the index header of a write.
func setIndex(w http.ResponseWriter, index uint64) {
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(index, 10))
}

// routeLabel is the request's route pattern without its method ("/v1/job/{id}"),
// so metrics have one series per route rather than per object.
func routeLabel(r *http.Request) string {
	_, path, found := strings.Cut(r.Pattern, " ")
	if !found {
		path = r.Pattern
	}
	if path == "/" || path == "" {
		return "unknown"
	}
	return path
}

// now is the server's clock, or the wall clock on a client-only agent.
func (h *HTTPServer) now() time.Time {
	if h.srv != nil {
		return h.srv.Config().Clock.Now()
	}
	return time.Now()
}
