package command

import (
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// TestClientOnlyAgent_SelfCommands points drover at a client-only agent:
// node status -self, node eligibility -self and any cluster command work
// (the agent forwards them to its server), as the operator needs.
func TestClientOnlyAgent_SelfCommands(t *testing.T) {
	srv := agenttest.Start(t, nil, func(cfg *config.Config) { cfg.Client.Enabled = false })
	cli := agenttest.Start(t, nil, func(cfg *config.Config) {
		cfg.Name = "edge"
		cfg.Server.Enabled = false
		cfg.Client.Enabled = true
		cfg.Client.Servers = []string{srv.RPCAddr()}
		cfg.DataDir = testutil.DataDir(t)
	})
	addr := "http://" + cli.HTTPAddr()
	testutil.WaitFor(t, 20*time.Second, "the client's node through the client", func() (bool, string) {
		r := run(t, "node", "status", "-address", addr, "-self")
		return r.code == 0 && strings.Contains(r.stdout, "edge"), r.stdout + r.stderr
	})
	if r := run(t, "node", "eligibility", "-address", addr, "-disable", "-self"); r.code != 0 || !strings.Contains(r.stdout, "ineligible") {
		t.Fatalf("node eligibility -self through a client: %+v", r)
	}
	if r := run(t, "node", "status", "-address", "http://"+srv.HTTPAddr()); r.code != 0 || !strings.Contains(r.stdout, "ineligible") {
		t.Fatalf("the server's view: %+v", r)
	}
	if r := run(t, "status", "-address", addr); r.code != 0 {
		t.Errorf("status through a client: %+v", r)
	}
	if r := run(t, "server", "members", "-address", addr); r.code != 0 || !strings.Contains(r.stdout, "alive") {
		t.Errorf("server members through a client: %+v", r)
	}
}
