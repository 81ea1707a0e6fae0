package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// startAgent starts an agent from cfg on free ports, logging to log, and
// shuts it down when the test ends.
func startAgent(t *testing.T, cfg *config.Config, log *slog.Logger) *Agent {
	t.Helper()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, err := New(cfg, log)
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a
}

// An agent that runs both roles with ACLs on, and no node_registration_token
// anywhere in its configuration (not -dev, which draws one of its own),
// registers its own client: its server vouches for it.
func TestNodeRegistration_ServerAndClientAgentWithACLsRegistersItsOwnNode(t *testing.T) {
	cfg := config.DevConfig()
	cfg.DevMode = false
	cfg.DataDir = testutil.DataDir(t)
	cfg.ACL.Enabled = true
	a := startAgent(t, cfg, nil)
	if a.config.Server.NodeRegistrationToken != "" || a.config.Client.NodeRegistrationToken != "" {
		t.Fatalf("the test needs an agent without node_registration_token")
	}
	testutil.WaitFor(t, 20*time.Second, "the agent's own node to be ready", func() (bool, string) {
		c := a.Client()
		if c == nil {
			return false, "no client yet"
		}
		n, err := a.Server().State().NodeByID(nil, c.Node().ID)
		if err != nil || n == nil {
			return false, fmt.Sprintf("node not registered (%v)", err)
		}
		return n.Status == structs.NodeStatusReady, "status " + n.Status
	})
}
