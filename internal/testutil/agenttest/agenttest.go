// Package agenttest starts real in-process agents for tests that drive
// Drover from outside: the CLI's golden tests and the end-to-end tests.
// (The agent package's own tests keep a local copy: they cannot import a
// package that imports them.)
package agenttest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
)

// Start starts an agent from the dev configuration on free ports, with
// mutate applied, and shuts it down when the test ends. When it runs a
// server, Start returns once that server leads and is ready. A nil log
// discards the agent's logs.
// NodeCredential is every test agent's node_registration_token.
const NodeCredential = "test-node-credential"

func Start(t testing.TB, log *slog.Logger, mutate func(*config.Config)) *agent.Agent {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0 // free ports, picked by the listeners
	// One node credential for every test agent, so further client agents
	// can register with any test server.
	cfg.Server.NodeRegistrationToken = NodeCredential
	cfg.Client.NodeRegistrationToken = NodeCredential
	if mutate != nil {
		mutate(cfg)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, err := agent.New(cfg, log)
	if err != nil {
		t.Fatalf("start agent %s: %v", cfg.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	if a.Server() != nil {
		if err := a.Server().WaitUntilReady(10 * time.Second); err != nil {
			t.Fatalf("agent %s: %v", cfg.Name, err)
		}
	}
	return a
}

// Client is the official Nomad API client pointed at a's HTTP API.
func Client(t testing.TB, a *agent.Agent) *api.Client {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatalf("api client: %v", err)
	}
	return c
}
