package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestClientHostStats_LocalAndForwarded(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	local, err := c.Nodes().Stats(first.Client().NodeID(), nil)
	if err != nil || local.Memory == nil || local.Memory.Total == 0 || len(local.CPU) == 0 || local.Uptime == 0 {
		t.Fatalf("local host stats: %+v %v", local, err)
	}
	if local.AllocDirStats == nil || local.AllocDirStats.Size == 0 {
		t.Fatalf("alloc dir disk missing: %+v", local.AllocDirStats)
	}
	eventually(t, 10*time.Second, func() string {
		remote, err := c.Nodes().Stats(second.Client().NodeID(), nil) // through the first agent
		if err != nil || remote.Memory == nil || remote.Memory.Total == 0 {
			return fmt.Sprintf("forwarded host stats: %+v %v", remote, err)
		}
		return ""
	})
	if _, err := c.Nodes().Stats("no-such-node", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown node: %v", err)
	}
}
