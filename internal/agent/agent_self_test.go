package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// Every -self flag of the CLI reads stats.client.node_id from
// /v1/agent/self, on server+client agents and client-only agents alike.
func TestAgentSelf_ClientStatsOnEveryAgentRunningAClient(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	for name, tc := range map[string]struct {
		client *api.Client
		nodeID string
		server string
	}{
		"server+client": {c, first.Client().NodeID(), "true"},
		"client-only":   {apiClient(t, second), second.Client().NodeID(), "false"},
	} {
		eventually(t, 10*time.Second, func() string {
			self, err := tc.client.Agent().Self()
			if err != nil {
				return fmt.Sprintf("%s: %v", name, err)
			}
			cs := self.Stats["client"]
			if cs["node_id"] != tc.nodeID || cs["last_heartbeat"] == "never" || cs["heartbeat_ttl"] == "" {
				return fmt.Sprintf("%s: stats.client = %v", name, cs)
			}
			if self.Stats["nomad"]["server"] != tc.server {
				return fmt.Sprintf("%s: stats.nomad = %v", name, self.Stats["nomad"])
			}
			return ""
		})
		health, err := tc.client.Agent().Health()
		if err != nil || health.Client == nil || !health.Client.Ok {
			t.Fatalf("%s: health %+v %v", name, health, err)
		}
	}
}

func apiClient(t *testing.T, a *Agent) *api.Client {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The web UI reads config.ACL.Enabled from /v1/agent/self (as Nomad's
// does) to know whether to ask what a token may do.
func TestAgentSelf_ReportsWhetherACLsAreOn(t *testing.T) {
	for _, on := range []bool{false, true} {
		a, c := testAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = on })
		if on {
			root, _, err := c.ACLTokens().Bootstrap(nil)
			if err != nil {
				t.Fatal(err)
			}
			c.SetSecretID(root.SecretID)
		}
		self, err := c.Agent().Self()
		if err != nil {
			t.Fatal(err)
		}
		acl, _ := self.Config["ACL"].(map[string]any)
		if acl == nil || acl["Enabled"] != on {
			t.Errorf("agent %s: config.ACL = %v, want Enabled %v", a.HTTPAddr(), self.Config["ACL"], on)
		}
	}
}
