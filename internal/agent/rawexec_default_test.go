package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// raw_exec runs tasks as the agent's user with no isolation: only -dev
// turns it on by itself; any other agent needs the plugin block.
func TestRawExec_OffOutsideDev(t *testing.T) {
	for _, dev := range []bool{false, true} {
		_, c := testAgent(t, func(cfg *config.Config) {
			cfg.DevMode = dev
			cfg.Client.Enabled = true
			cfg.DataDir = testutil.DataDir(t)
		})
		var node *api.Node
		eventually(t, 10*time.Second, func() string {
			nodes, _, err := c.Nodes().List(nil)
			if err != nil || len(nodes) == 0 {
				return "no node registered"
			}
			node, _, err = c.Nodes().Info(nodes[0].ID, nil)
			if err != nil || node.Drivers["raw_exec"] == nil {
				return "raw_exec not fingerprinted"
			}
			return ""
		})
		if got := node.Drivers["raw_exec"].Detected; got != dev {
			t.Fatalf("dev=%v: raw_exec detected = %v", dev, got)
		}
	}
}
