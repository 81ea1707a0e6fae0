package server

import (
	"testing"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// Shutdown ends every goroutine the server started: here a client's RPC
// session with a blocking alloc query in flight. Shutdown returns (it
// waits for the tracked goroutines), the query returns instead of waiting
// out its wait, and the server closes the client's connection.
func TestShutdown_EndsRPCLoopsAndBlockingCalls(t *testing.T) {
	s := realServer(t)
	node := e2eNode(1, 1000, 1000)
	if _, err := s.RegisterNode(node); err != nil {
		t.Fatal(err)
	}
	c := dialRPC(t, s)
	stream, err := c.session.Open() // opened before Shutdown, so the call is under way
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan error, 1)
	go func() {
		args := &structs.NodeAllocsArgs{NodeID: node.ID, SecretID: node.SecretID,
			QueryOptions: structs.QueryOptions{MinQueryIndex: 1 << 40, MaxQueryTime: 10 * time.Minute}}
		codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle)
		called <- msgpackrpc.CallWithCodec(codec, "Node.GetClientAllocs", args, &structs.NodeAllocsResponse{})
	}()

	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown() }()
	select {
	case <-shut:
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown did not return: a server goroutine outlived it")
	}
	select {
	case <-called: // the unchanged answer or a closed stream: either ends it
	case <-time.After(30 * time.Second):
		t.Fatal("the blocking query outlived the server")
	}
	testutil.WaitFor(t, 10*time.Second, "the server to close the client's connection", c.session.IsClosed)
}
