package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sockaddr "github.com/hashicorp/go-sockaddr"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/connlimit"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// Agent is one running drover process: a server, a client, or both (as in
// -dev), behind the HTTP API.
type Agent struct {
	config *config.Config
	log    *slog.Logger

	server      *server.Server
	listener    net.Listener
	rpcListener net.Listener

	client      atomic.Pointer[client.Client] // set once the client runs; read by HTTP handlers
	clientRPC   *rpcclient.Client
	aclRPC      *rpcclient.Client // token resolution of an agent without a server
	tls         agentTLS
	httpHandler *HTTPServer
	tempDataDir string
	partition   *partition
	http        *http.Server
	logs        *logHub // the agent's log records, for /v1/agent/monitor
	// httpCancel ends every request's context at shutdown, so blocking
	// queries, log follows and monitors return instead of holding the
	// shutdown until its deadline.
	httpCancel context.CancelFunc
	// logLevel is the level the agent's logger logs at (WithLogLevel);
	// Reload sets it.
	logLevel *slog.LevelVar
	// stopTelemetry ends the metric sinks' export (startTelemetry).
	stopTelemetry context.CancelFunc
	// serverClock, when set (WithServerClock), is the server's clock.
	serverClock clock.Clock
}

// New starts an agent: the server, then the HTTP API on the configured
// address. A port of 0 picks a free one (see HTTPAddr).
func New(cfg *config.Config, log *slog.Logger, opts ...Option) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logs := newLogHub()
	log = slog.New(&monitoredHandler{base: log.Handler(), hub: logs})
	a := &Agent{config: withDevNodeCredential(cfg), log: log, logs: logs}
	for _, o := range opts {
		o(a)
	}
	for _, w := range cfg.Warnings {
		log.Warn("agent configuration: " + w)
	}
	if err := a.start(); err != nil {
		a.Shutdown(context.Background())
		return nil, err
	}
	return a, nil
}

// start brings up the server (if enabled), the HTTP API, then the client
// (if enabled), which registers with the servers over RPC.
func (a *Agent) start() error {
	if err := a.loadTLS(); err != nil {
		return err
	}
	if a.config.Server.Enabled {
		// Listen first: the RPC listener's real address (port 0 picks a
		// free one) is the server's raft address.
		ln, err := net.Listen("tcp", a.config.RPCAddr())
		if err != nil {
			return fmt.Errorf("agent: listen on %s: %w", a.config.RPCAddr(), err)
		}
		a.rpcListener = ln
		if a.config.PartitionFile != "" {
			a.partition = watchPartitionFile(a.config.PartitionFile, a.log)
		}
		srv, err := server.New(a.serverConfig())
		if err != nil {
			ln.Close()
			return err
		}
		a.server = srv
		if err := srv.ServeRPC(ln); err != nil {
			return err
		}
	}
	if err := a.serveHTTP(); err != nil {
		return err
	}
	if a.config.Client.Enabled {
		if a.server != nil {
			// Registering before our own server has a leader only fails
			// and retries; waiting a moment keeps the log honest.
			_ = a.server.WaitUntilReady(10 * time.Second)
		}
		return a.startClient()
	}
	return nil
}

// RPCAddr returns the address the internal RPC listens on.
func (a *Agent) RPCAddr() string { return a.rpcListener.Addr().String() }

func (a *Agent) serverConfig() *server.Config {
	c := a.config
	sc := &server.Config{
		NodeName:                           c.Name,
		Region:                             c.Region,
		Datacenter:                         c.Datacenter,
		DataDir:                            c.DataDir,
		RaftLogStore:                       c.Server.RaftLogStore,
		DevMode:                            c.DevMode,
		RaftAddr:                           a.advertisedRPCAddr(),
		RaftNetwork:                        true,
		Serf:                               a.serfConfig(),
		BootstrapExpect:                    c.Server.BootstrapExpect,
		NumSchedulers:                      c.Server.NumSchedulers,
		EventBufferSize:                    c.Server.EventBufferSize,
		EnabledSchedulers:                  c.Server.EnabledSchedulers,
		EvalGCThreshold:                    c.Server.EvalGCThreshold,
		MinHeartbeatTTL:                    c.Server.MinHeartbeatTTL,
		MaxHeartbeatsPerSecond:             c.Server.MaxHeartbeatsPerSecond,
		HeartbeatGrace:                     c.Server.HeartbeatGrace,
		JobGCThreshold:                     c.Server.JobGCThreshold,
		BatchEvalGCThreshold:               c.Server.BatchEvalGCThreshold,
		NodeGCThreshold:                    c.Server.NodeGCThreshold,
		GCInterval:                         c.Server.JobGCInterval,
		RaftTimings:                        server.ScaledRaftTimings(c.Server.RaftMultiplier),
		DefaultSchedulerConfig:             schedulerConfig(c.Server.DefaultSchedulerConfig),
		Autopilot:                          autopilotConfig(c.Autopilot),
		JobMaxCount:                        c.Server.JobMaxCount,
		DisableDispatchedJobSummaryMetrics: c.Telemetry.DisableDispatchedJobSummaryMetrics,
		RPCMaxConnsPerClient:               c.Limits.RPCMaxConnsPerClient,
		RPCHandshakeTimeout:                handshakeTimeout(c.Limits.RPCHandshakeTimeout),
		Logger:                             a.log,
		ACL: server.ACLConfig{Enabled: c.ACL.Enabled, TokenTTL: c.ACL.TokenTTL, PolicyTTL: c.ACL.PolicyTTL,
			NodeRegistrationToken: c.Server.NodeRegistrationToken},
		OIDCIssuer: c.Server.OIDCIssuer,
		RPCTLS:     a.tls.rpcServer, RPCClientTLS: a.tls.rpcClient,
		RaftApplyFault: c.RaftApplyFault,
	}
	if a.partition != nil {
		sc.PeerFilter = a.partition.cut
	}
	if a.serverClock != nil {
		sc.Clock = a.serverClock
	}
	return sc
}

// advertisedRPCAddr is the rpc address other servers and clients use:
// advertise.rpc when set (the listener's port added when it has none),
// else the listener's address; a listener on every interface (0.0.0.0,
// the default bind_addr) advertises the machine's private IP, as Nomad
// does (raft refuses to advertise an unspecified address).
func (a *Agent) advertisedRPCAddr() string {
	adv := a.config.Advertise.RPC
	if adv == "" {
		host, port, _ := net.SplitHostPort(a.RPCAddr())
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			host = privateIP()
		}
		return net.JoinHostPort(host, port)
	}
	if _, _, err := net.SplitHostPort(adv); err != nil {
		_, port, _ := net.SplitHostPort(a.RPCAddr())
		return net.JoinHostPort(adv, port)
	}
	return adv
}

// serfConfig is the server's gossip configuration: the serf port on the
// bind address, and server_join's retry_join.
func (a *Agent) serfConfig() *server.SerfConfig {
	c := a.config
	sj := c.Server.ServerJoin
	sc := &server.SerfConfig{
		BindAddr: c.BindAddr, BindPort: c.Ports.Serf,
		RetryJoin: sj.RetryJoin, RetryInterval: sj.RetryInterval, RetryMax: sj.RetryMax,
		Fast: c.FastGossip,
	}
	if c.Addresses.Serf != "" {
		sc.BindAddr = c.Addresses.Serf
	}
	if adv := c.Advertise.Serf; adv != "" {
		host, port, err := net.SplitHostPort(adv)
		if err != nil {
			host, port = adv, ""
		}
		sc.AdvertiseAddr = host
		sc.AdvertisePort, _ = strconv.Atoi(port)
	}
	if c.Server.Encrypt != "" {
		sc.SecretKey, _ = config.GossipKey(c.Server.Encrypt) // Validate checked it
	}
	return sc
}

// schedulerConfig converts server.default_scheduler_config.
func schedulerConfig(c *config.SchedulerConfig) *structs.SchedulerConfiguration {
	if c == nil {
		return nil
	}
	return &structs.SchedulerConfiguration{
		SchedulerAlgorithm: c.SchedulerAlgorithm, MemoryOversubscriptionEnabled: c.MemoryOversubscriptionEnabled,
		RejectJobRegistration: c.RejectJobRegistration, PauseEvalBroker: c.PauseEvalBroker,
		PreemptionConfig: structs.PreemptionConfig{SystemSchedulerEnabled: c.PreemptSystem, SysBatchSchedulerEnabled: c.PreemptSysBatch,
			BatchSchedulerEnabled: c.PreemptBatch, ServiceSchedulerEnabled: c.PreemptService},
	}
}

// autopilotConfig converts the autopilot { } block (nil: not set).
func autopilotConfig(c *config.Autopilot) *server.AutopilotConfig {
	if c == nil {
		return nil
	}
	return &server.AutopilotConfig{CleanupDeadServers: c.CleanupDeadServers, LastContactThreshold: c.LastContactThreshold,
		MaxTrailingLogs: uint64(c.MaxTrailingLogs), MinQuorum: uint(c.MinQuorum), ServerStabilizationTime: c.ServerStabilizationTime}
}

func (a *Agent) serveHTTP() error {
	ln, err := net.Listen("tcp", a.config.HTTPAddr())
	if err != nil {
		return fmt.Errorf("agent: listen on %s: %w", a.config.HTTPAddr(), err)
	}
	limits := DefaultHTTPLimits
	limits.MaxConnsPerClient = a.config.Limits.HTTPMaxConnsPerClient
	ln = connlimit.Wrap(ln, limits.MaxConnsPerClient)
	a.listener = ln
	ln = a.httpListener(ln)
	info := AgentInfo{
		Name: a.config.Name, Region: a.config.Region, Datacenter: a.config.Datacenter,
		HTTPAddr: ln.Addr().String(), RPCAddr: a.config.RPCAddr(), Config: a.selfConfig(),
	}
	if a.rpcListener != nil {
		info.RPCAddr = a.RPCAddr()
	}
	if a.config.Client.Enabled {
		info.ClientServers, _ = a.clientServers()
	}
	handler := NewHTTPServer(a.server, a.Client, info, a.log.With("component", "http"))
	a.httpHandler = handler
	handler.logs, handler.debug = a.logs, a.config.EnableDebug || a.config.DevMode
	handler.uiOff = !a.config.UIEnabled
	handler.remoteExecOff = a.config.Client.DisableRemoteExec
	handler.responseHeaders = a.config.HTTPAPIResponseHeaders
	tc := a.config.Telemetry
	handler.metricsOff = metricsOff{prometheus: !tc.PrometheusMetrics, allocs: !tc.PublishAllocationMetrics, node: !tc.PublishNodeMetrics}
	if err := a.startTelemetry(handler.metrics); err != nil {
		ln.Close()
		return err
	}
	handler.clientServers = a.clientServerList
	handler.remoteACL = a.remoteACLResolver()
	handler.aclEnabled = a.config.ACL.Enabled
	if dial := a.forwardDialer(); dial != nil {
		handler.toServer = newServerForwarder(handler, dial)
	} else {
		var h http.Handler = handler
		a.server.ForwardedHTTP.Store(&h)
	}
	if a.tls.httpServer != nil {
		handler.forwardScheme, handler.forwardTransport = "https", forwardTransportFor(a.tls.httpClient)
	}
	baseCtx, cancel := context.WithCancel(context.Background())
	a.httpCancel = cancel
	a.http = &http.Server{
		Handler:           limits.withDeadlines(WithGzip(handler)),
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ReadHeaderTimeout: limits.ReadHeader,
		IdleTimeout:       limits.Idle,
		// TLS handshake failures (a plain-HTTP or certificate-less
		// caller) go to the agent's log, not stderr.
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := a.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("http server stopped", "error", err)
		}
	}()
	a.log.Info("http api listening", "addr", ln.Addr().String())
	return nil
}

// selfConfig is the agent config as /v1/agent/self shows it.
func (a *Agent) selfConfig() map[string]any {
	c := a.config
	return map[string]any{
		"Region": c.Region, "Datacenter": c.Datacenter, "NodeName": c.Name,
		"DataDir": c.DataDir, "BindAddr": c.BindAddr, "DevMode": c.DevMode,
		"Ports":   map[string]int{"HTTP": c.Ports.HTTP, "RPC": c.Ports.RPC, "Serf": c.Ports.Serf},
		"Server":  map[string]any{"Enabled": c.Server.Enabled, "BootstrapExpect": c.Server.BootstrapExpect, "NumSchedulers": c.Server.NumSchedulers},
		"Client":  map[string]any{"Enabled": c.Client.Enabled},
		"ACL":     map[string]any{"Enabled": c.ACL.Enabled}, // as Nomad's; the web UI reads it
		"Version": map[string]string{"Version": Version},
	}
}

// Version is the agent's version string.
const Version = "0.1.0-dev"

// Server returns the agent's server.
func (a *Agent) Server() *server.Server { return a.server }

// HTTPAddr returns the address the API listens on.
func (a *Agent) HTTPAddr() string { return a.listener.Addr().String() }

// Shutdown stops accepting HTTP requests and ends blocking queries at
// once, lets the requests in flight finish (bounded by ctx) while the
// client stops, and then stops the server. When ctx ends before all that
// has finished, Shutdown logs what it still waits for (the parts, and
// the server's goroutines and leader duties by name) and returns an error
// naming them without waiting further: the caller (the agent command)
// exits anyway. Nothing acknowledged is lost by that: raft's log store
// has every acknowledged write on disk already.
func (a *Agent) Shutdown(ctx context.Context) error {
	var st shutdownState
	done := make(chan error, 1)
	go func() { done <- a.shutdown(ctx, &st) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done: // finished just as ctx ended
		return err
	default:
	}
	waiting := st.waitingFor(a.server)
	a.log.Error("shutdown did not finish in time; exiting without waiting further", "waiting_for", strings.Join(waiting, ", "))
	return fmt.Errorf("shutdown did not finish in time: still waiting for %s", strings.Join(waiting, ", "))
}

// shutdownState is which parts of a shutdown are still under way.
type shutdownState struct {
	mu      sync.Mutex
	pending []string
}

// begin records that part is under way; the returned func ends it.
func (st *shutdownState) begin(part string) (end func()) {
	st.mu.Lock()
	st.pending = append(st.pending, part)
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.pending = slices.DeleteFunc(st.pending, func(p string) bool { return p == part })
	}
}

// waitingFor names the parts still under way; while the server is
// stopping, what it waits for (server.Server.Waiting).
func (st *shutdownState) waitingFor(srv *server.Server) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []string
	for _, p := range st.pending {
		if p == "server" && srv != nil {
			if w := srv.Waiting(); len(w) > 0 {
				p = "server (" + strings.Join(w, ", ") + ")"
			} else {
				p = "server (raft)"
			}
		}
		out = append(out, p)
	}
	return out
}

func (a *Agent) shutdown(ctx context.Context, st *shutdownState) error {
	httpErr := make(chan error, 1)
	if a.http != nil {
		a.httpCancel() // blocking queries answer now instead of holding Shutdown up
		end := st.begin("http requests in flight")
		go func() { defer end(); httpErr <- a.stopHTTP(ctx) }()
	} else {
		httpErr <- nil
	}
	endClient := st.begin("client")
	clientErr := a.stopClient()
	endClient()
	errs := []error{clientErr, <-httpErr}
	removed := a.removeTempDataDir()
	if a.aclRPC != nil {
		a.aclRPC.Close()
	}
	if a.server != nil {
		end := st.begin("server")
		errs = append(errs, a.server.Shutdown())
		end()
	}
	if a.stopTelemetry != nil {
		a.stopTelemetry()
	}
	// A -dev data dir too big to remove by the deadline is left in the
	// temporary directory rather than holding the shutdown up.
	select {
	case <-removed:
	case <-ctx.Done():
		a.log.Warn("shutdown deadline passed before the dev data dir was removed", "dir", a.tempDataDir)
	}
	return errors.Join(errs...)
}

// privateIP is the machine's private IP (what an agent bound to 0.0.0.0
// advertises), else loopback.
func privateIP() string {
	if ip, err := sockaddr.GetPrivateIP(); err == nil && ip != "" {
		return ip
	}
	return "127.0.0.1"
}

func (a *Agent) stopHTTP(ctx context.Context) error {
	err := a.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = a.http.Close()
	}
	return err
}

// startTelemetry sends the agent's metrics to the telemetry block's sinks
// (statsd, statsite, dogstatsd, and the in-memory window of /v1/metrics),
// filtered by prefix_filter, until shutdown.
func (a *Agent) startTelemetry(m *telemetry.Metrics) error {
	t := a.config.Telemetry
	sc := telemetry.SinkConfig{
		CollectionInterval: t.CollectionInterval, HostnameLabel: t.EnableHostnameLabel,
		StatsdAddr: t.StatsdAddress, StatsiteAddr: t.StatsiteAddress, DogStatsdAddr: t.DogStatsdAddress, DogStatsdTags: t.DogStatsdTags,
		FilterDefault: t.FilterDefault, InmemInterval: t.InMemoryCollectionInterval, InmemRetain: t.InMemoryRetentionPeriod,
	}
	if !t.DisableHostname {
		sc.Hostname = telemetry.NodeHostname(a.config.Name, t.UseNodeName)
	}
	for _, p := range t.PrefixFilter {
		if strings.HasPrefix(p, "+") {
			sc.AllowedPrefixes = append(sc.AllowedPrefixes, p[1:])
		} else {
			sc.BlockedPrefixes = append(sc.BlockedPrefixes, strings.TrimPrefix(p, "-"))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.StartSinks(ctx, sc); err != nil {
		cancel()
		return err
	}
	a.stopTelemetry = cancel
	return nil
}
