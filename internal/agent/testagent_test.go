package agent

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// testAgent starts an in-process agent on a free port and returns it with
// an official Nomad API client pointed at it.
// testNodeCredential is every test agent's node_registration_token.
const testNodeCredential = "test-node-credential"

func testAgent(t testing.TB, mutate func(*config.Config)) (*Agent, *api.Client) {
	t.Helper()
	return testAgentWith(t, mutate)
}

// testAgentWith is testAgent with agent options.
func testAgentWith(t testing.TB, mutate func(*config.Config), opts ...Option) (*Agent, *api.Client) {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0 // free ports, picked by the listeners
	cfg.Client.Enabled = false
	// HTTP-surface tests inspect evals as written: workers take only core
	// evals, so job evals stay pending.
	cfg.Server.EnabledSchedulers = []string{"_core"}
	// One node credential for every test agent, so client-only agents
	// (clientOnlyAgent) can register with any of them.
	cfg.Server.NodeRegistrationToken = testNodeCredential
	cfg.Client.NodeRegistrationToken = testNodeCredential
	if mutate != nil {
		mutate(cfg)
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	if err := a.Server().WaitUntilReady(10 * time.Second); err != nil {
		t.Fatalf("wait for leader: %v", err)
	}
	client, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatalf("api client: %v", err)
	}
	return a, client
}
