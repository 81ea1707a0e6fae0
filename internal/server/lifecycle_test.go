package server

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/structs"
)

// Shutdown ends every goroutine the server started: here a client's RPC
// session with a blocking alloc query in flight. Shutdown returns (it
// waits for the tracked goroutines), the query returns instead of waiting
// out its hour, and the connection and listener are closed.
func TestShutdown_EndsRPCLoopsAndBlockingCalls(t *testing.T) {
	s := realServer(t)
	node := e2eNode(1, 1000, 1000)
	if _, err := s.RegisterNode(node); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeRPC(ln); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte{structs.RPCMultiplexByte}); err != nil {
		t.Fatal(err)
	}
	cfg := yamux.DefaultConfig()
	cfg.LogOutput = io.Discard
	session, err := yamux.Client(conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := session.Open()
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan error, 1)
	go func() {
		codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle)
		args := &structs.NodeAllocsArgs{NodeID: node.ID, SecretID: node.SecretID, QueryOptions: structs.QueryOptions{MinQueryIndex: 1 << 40, MaxQueryTime: time.Hour}}
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
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("the RPC listener still accepts after shutdown")
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the client connection is still open after shutdown (read: %v)", err)
	}
}
