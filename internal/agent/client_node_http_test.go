package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
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

func TestClientMetadata_ForwardedApplyReachesTheServer(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	nodeID := second.Client().NodeID()
	v := "blue"
	eventually(t, 10*time.Second, func() string { // once the node has registered
		resp, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"color": &v}}, nil)
		if err != nil || resp.Meta["color"] != "blue" || resp.Dynamic["color"] == nil {
			return fmt.Sprintf("apply through the server agent: %+v %v", resp, err)
		}
		return ""
	})
	eventually(t, 10*time.Second, func() string {
		node, _, err := c.Nodes().Info(nodeID, nil)
		if err != nil || node.Meta["color"] != "blue" {
			return fmt.Sprintf("server's node meta: %v %v", node.Meta, err)
		}
		return ""
	})
	// A null unsets the key.
	resp, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: nodeID, Meta: map[string]*string{"color": nil}}, nil)
	if err != nil || resp.Meta["color"] != "" {
		t.Fatalf("unset: %+v %v", resp, err)
	}
	read, err := c.Nodes().Meta().Read(nodeID, nil)
	if err != nil || read.Meta["color"] != "" {
		t.Fatalf("read: %+v %v", read, err)
	}
	if _, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{Meta: map[string]*string{"bad key": &v}}, nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("bad key: %v", err)
	}
}
