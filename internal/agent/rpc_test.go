package agent

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/structs"
)

// TestRPC_ClientCallsReachTheServerEndpoints drives the client RPC over a
// real connection: register, heartbeat, a blocking alloc pull, an alloc
// update, and a clear "node not found" for an unknown node; the first
// listed server is dead, so the call fails over to the live one.
func TestRPC_ClientCallsReachTheServerEndpoints(t *testing.T) {
	a, _ := testAgent(t, nil)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	c, err := rpcclient.New([]string{deadAddr, a.RPCAddr()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	node := simNode(7, 4000, 8192)
	node.SecretID = "s3cret"
	// -dev generates a node credential: without it nobody registers.
	if _, err := c.Register(ctx, &structs.NodeRegisterArgs{Node: node}); !errors.Is(err, structs.ErrNodeRegistrationDenied) ||
		!strings.HasPrefix(err.Error(), "Permission denied: no node registration token was presented") {
		t.Fatalf("register without the node credential: %v", err)
	}
	reg, err := c.Register(ctx, &structs.NodeRegisterArgs{Node: node, NodeRegistrationToken: a.config.Server.NodeRegistrationToken})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if reg.HeartbeatTTL <= 0 || reg.Index == 0 {
		t.Fatalf("register reply %+v", reg)
	}
	hb, err := c.Heartbeat(ctx, &structs.NodeHeartbeatArgs{NodeID: node.ID, SecretID: node.SecretID})
	if err != nil || hb.HeartbeatTTL <= 0 {
		t.Fatalf("heartbeat: %v %+v", err, hb)
	}
	start := time.Now()
	pull, err := c.GetAllocs(ctx, &structs.NodeAllocsArgs{NodeID: node.ID, SecretID: node.SecretID,
		QueryOptions: structs.QueryOptions{MinQueryIndex: 1 << 40, MaxQueryTime: 100 * time.Millisecond}})
	if err != nil || len(pull.Allocs) != 0 || time.Since(start) < 90*time.Millisecond {
		t.Fatalf("blocking pull: %v %+v after %v", err, pull, time.Since(start))
	}
	if _, err := c.UpdateAllocs(ctx, &structs.AllocClientUpdateArgs{NodeID: node.ID, SecretID: node.SecretID}); err != nil {
		t.Fatalf("empty update: %v", err)
	}
	_, err = c.Heartbeat(ctx, &structs.NodeHeartbeatArgs{NodeID: "00000000-0000-4000-8000-000000000999", SecretID: "x"})
	if !errors.Is(err, structs.ErrNodeNotFound) {
		t.Fatalf("unknown node: %v", err)
	}
}
