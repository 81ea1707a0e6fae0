package agent

import (
	"fmt"
	"testing"
	"time"
)

// The CLI's `node status` shows each node's version from NodeListStub.Version,
// which servers fill from the node's nomad.version attribute.
func TestNodeList_CarriesAgentVersion(t *testing.T) {
	_, c := clientTestAgent(t)
	eventually(t, 10*time.Second, func() string {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil || len(nodes) != 1 {
			return fmt.Sprintf("nodes %v, err %v", nodes, err)
		}
		if nodes[0].Version != Version {
			return fmt.Sprintf("Version = %q, want %q", nodes[0].Version, Version)
		}
		node, _, err := c.Nodes().Info(nodes[0].ID, nil)
		if err != nil || node.Attributes["nomad.advertise.address"] == "" {
			return fmt.Sprintf("advertise address attribute missing: %v", err)
		}
		return ""
	})
}
