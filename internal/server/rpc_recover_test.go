package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/connlimit"
	"github.com/drover-project/drover/internal/structs"
)

type panicker struct{}

func (panicker) Now(context.Context, *structs.NodeHeartbeatArgs) (*structs.GenericResponse, error) {
	var m map[string]int
	//lint:ignore SA5000 the bug this handler exists to have
	m["boom"]++ // a handler bug: nil map write
	return nil, nil
}

// dialSession opens a multiplexed RPC session to addr.
func dialSession(t *testing.T, addr string) *yamux.Session {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte{structs.RPCMultiplexByte}); err != nil {
		t.Fatal(err)
	}
	session, err := yamux.Client(conn, yamuxConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

func callOnSession(t *testing.T, session *yamux.Session, method string, args, reply any) error {
	t.Helper()
	stream, err := session.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	stream.SetDeadline(time.Now().Add(10 * time.Second))
	codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle)
	return msgpackrpc.CallWithCodec(codec, method, args, reply)
}

// A handler that panics answers its caller with an error; the server
// process lives and serves the next call.
func TestRPC_HandlerPanicIsRecovered(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := newRPCServer(s, connlimit.Wrap(ln, 0))
	r.methods = s.rpcMethods()
	r.methods["Boom.Now"] = rpcMethodOf(panicker{}.Now)
	r.start()

	session := dialSession(t, ln.Addr().String())
	err = callOnSession(t, session, "Boom.Now", &structs.NodeHeartbeatArgs{}, &structs.GenericResponse{})
	if err == nil || !strings.Contains(err.Error(), "internal error in Boom.Now") {
		t.Fatalf("panicking handler: %v", err)
	}
	err = callOnSession(t, session, "Node.Register", &structs.NodeRegisterArgs{}, &structs.NodeUpdateResponse{})
	if err == nil || !strings.Contains(err.Error(), "missing node") {
		t.Fatalf("call after the panic: %v", err)
	}
}

// The RPC listener caps connections per client IP.
func TestRPC_ConnectionCapPerClient(t *testing.T) {
	cfg := &Config{NodeName: "t", DevMode: true, RPCMaxConnsPerClient: 2}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeRPC(ln); err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	conns[2].SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = conns[2].Read(make([]byte, 1))
	if ne, ok := err.(net.Error); err == nil || ok && ne.Timeout() {
		t.Fatalf("third RPC connection from one IP stayed open: %v", err)
	}
}
