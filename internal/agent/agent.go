package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
)

// Agent is one running drover process: a server (and, once the client
// lands, a client) behind the HTTP API.
type Agent struct {
	config *config.Config
	log    *slog.Logger

	server      *server.Server
	listener    net.Listener
	rpcListener net.Listener
	http        *http.Server
}

// New starts an agent: the server, then the HTTP API on the configured
// address. A port of 0 picks a free one (see HTTPAddr).
func New(cfg *config.Config, log *slog.Logger) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Server.Enabled {
		return nil, errors.New("agent: only server agents are supported until the client lands (server { enabled = true })")
	}
	a := &Agent{config: cfg, log: log}
	srv, err := server.New(a.serverConfig())
	if err != nil {
		return nil, err
	}
	a.server = srv
	if err := a.serveRPC(); err != nil {
		srv.Shutdown()
		return nil, err
	}
	if err := a.serveHTTP(); err != nil {
		srv.Shutdown()
		return nil, err
	}
	return a, nil
}

// serveRPC listens for client agents on the rpc address.
func (a *Agent) serveRPC() error {
	ln, err := net.Listen("tcp", a.config.RPCAddr())
	if err != nil {
		return fmt.Errorf("agent: listen on %s: %w", a.config.RPCAddr(), err)
	}
	a.rpcListener = ln
	return a.server.ServeRPC(ln)
}

// RPCAddr returns the address the internal RPC listens on.
func (a *Agent) RPCAddr() string { return a.rpcListener.Addr().String() }

func (a *Agent) serverConfig() *server.Config {
	c := a.config
	return &server.Config{
		NodeName:               c.Name,
		Region:                 c.Region,
		Datacenter:             c.Datacenter,
		DataDir:                c.DataDir,
		DevMode:                c.DevMode,
		RaftAddr:               c.RPCAddr(),
		BootstrapExpect:        c.Server.BootstrapExpect,
		NumSchedulers:          c.Server.NumSchedulers,
		EnabledSchedulers:      c.Server.EnabledSchedulers,
		EvalGCThreshold:        c.Server.EvalGCThreshold,
		MinHeartbeatTTL:        c.Server.MinHeartbeatTTL,
		MaxHeartbeatsPerSecond: c.Server.MaxHeartbeatsPerSecond,
		HeartbeatGrace:         c.Server.HeartbeatGrace,
		JobGCThreshold:         c.Server.JobGCThreshold,
		Logger:                 a.log,
	}
}

func (a *Agent) serveHTTP() error {
	ln, err := net.Listen("tcp", a.config.HTTPAddr())
	if err != nil {
		return fmt.Errorf("agent: listen on %s: %w", a.config.HTTPAddr(), err)
	}
	a.listener = ln
	info := AgentInfo{
		Name: a.config.Name, Region: a.config.Region, Datacenter: a.config.Datacenter,
		HTTPAddr: ln.Addr().String(), RPCAddr: a.config.RPCAddr(), Config: a.selfConfig(),
	}
	a.http = &http.Server{
		Handler:           NewHTTPServer(a.server, info, a.log.With("component", "http")),
		ReadHeaderTimeout: 10 * time.Second,
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
		"Version": map[string]string{"Version": Version},
	}
}

// Version is the agent's version string.
const Version = "0.1.0-dev"

// Server returns the agent's server.
func (a *Agent) Server() *server.Server { return a.server }

// HTTPAddr returns the address the API listens on.
func (a *Agent) HTTPAddr() string { return a.listener.Addr().String() }

// Shutdown stops the HTTP API (letting requests in flight finish, bounded
// by ctx) and then the server.
func (a *Agent) Shutdown(ctx context.Context) error {
	httpErr := a.http.Shutdown(ctx)
	if errors.Is(httpErr, context.DeadlineExceeded) {
		httpErr = a.http.Close()
	}
	return errors.Join(httpErr, a.server.Shutdown())
}
