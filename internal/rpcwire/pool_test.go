package rpcwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// Echo is the test server's service.
type Echo struct{ entered, release chan struct{} }

type EchoArgs struct{ Text string }
type EchoReply struct{ Text string }

func (e *Echo) Say(args *EchoArgs, reply *EchoReply) error {
	reply.Text = args.Text
	return nil
}

func (e *Echo) Fail(args *EchoArgs, reply *EchoReply) error {
	return errors.New("refused: " + args.Text)
}

// Wait answers once release is closed (a call to cancel).
func (e *Echo) Wait(args *EchoArgs, reply *EchoReply) error {
	e.entered <- struct{}{}
	<-e.release
	reply.Text = args.Text
	return nil
}

// testServer serves Echo the way a server's rpc port does (protocol byte,
// yamux, one net/rpc codec per stream) and counts the streams it accepts.
type testServer struct {
	addr     string
	streams  atomic.Int64
	echo     *Echo
	mu       sync.Mutex
	sessions []*yamux.Session
}

// goAway makes every session the server has accepted refuse new streams,
// as a server going away does; it still accepts new connections.
func (ts *testServer) goAway() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, s := range ts.sessions {
		_ = s.GoAway()
	}
}

func startTestServer(t testing.TB) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{addr: ln.Addr().String(), echo: &Echo{entered: make(chan struct{}, 1), release: make(chan struct{})}}
	srv := rpc.NewServer()
	if err := srv.Register(ts.echo); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go ts.serveConn(conn, srv)
		}
	}()
	return ts
}

func (ts *testServer) serveConn(conn net.Conn, srv *rpc.Server) {
	defer conn.Close()
	var proto [1]byte
	if _, err := io.ReadFull(conn, proto[:]); err != nil || proto[0] != structs.RPCMultiplexByte {
		return
	}
	session, err := yamux.Server(conn, YamuxConfig())
	if err != nil {
		return
	}
	ts.mu.Lock()
	ts.sessions = append(ts.sessions, session)
	ts.mu.Unlock()
	for {
		stream, err := session.Accept()
		if err != nil {
			return
		}
		ts.streams.Add(1)
		go srv.ServeCodec(msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle))
	}
}

func say(t testing.TB, p *Pool, addr, text string) {
	t.Helper()
	var reply EchoReply
	if err := p.RPC(context.Background(), addr, "Echo.Say", &EchoArgs{Text: text}, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Text != text {
		t.Fatalf("reply %q, want %q", reply.Text, text)
	}
}

// Calls one after another share one stream; concurrent calls each get
// their own.
func TestPool_ReusesTheStreamOfAFinishedCall(t *testing.T) {
	ts := startTestServer(t)
	p := NewPool()
	defer p.Close()
	for _, text := range []string{"a", "b", "c"} {
		say(t, p, ts.addr, text)
	}
	if got := ts.streams.Load(); got != 1 {
		t.Fatalf("3 sequential calls opened %d streams, want 1", got)
	}
}

// An error reply's stream is not reused (the server may have stopped
// reading it), and the error still reaches the caller.
func TestPool_ErrorReplyClosesItsStream(t *testing.T) {
	ts := startTestServer(t)
	p := NewPool()
	defer p.Close()
	err := p.RPC(context.Background(), ts.addr, "Echo.Fail", &EchoArgs{Text: "x"}, &EchoReply{})
	if err == nil || err.Error() != "refused: x" {
		t.Fatalf("err = %v, want the server's refusal", err)
	}
	say(t, p, ts.addr, "after")
	if got := ts.streams.Load(); got != 2 {
		t.Fatalf("streams = %d, want 2: the failed call's stream must not carry the next call", got)
	}
}

// A call its context cancels ends at once, and its stream (which may still
// get the late answer) is not reused: the next call must not read it.
func TestPool_CanceledCallIsNotReused(t *testing.T) {
	ts := startTestServer(t)
	p := NewPool()
	defer p.Close()
	say(t, p, ts.addr, "warm") // one idle stream
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.RPC(ctx, ts.addr, "Echo.Wait", &EchoArgs{Text: "late"}, &EchoReply{}) }()
	<-ts.echo.entered // the call is on the reused stream, in the handler
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a canceled call returned no error")
	}
	close(ts.echo.release) // the canceled call's answer is now written
	say(t, p, ts.addr, "next")
	if got := ts.streams.Load(); got != 2 {
		t.Fatalf("streams = %d, want 2 (the canceled one, then a new one)", got)
	}
}

// A pooled session that can no longer open a stream (its server went
// away, yet the session is not closed) is dropped and dialed again within
// the call: the request had not left, so the call succeeds.
func TestPool_DeadPooledSessionIsRedialed(t *testing.T) {
	ts := startTestServer(t)
	p := NewPool()
	defer p.Close()
	say(t, p, ts.addr, "warm")
	p.mu.Lock()
	old := p.sessions[ts.addr]
	old.idle = nil // the next call opens a stream on the old session
	p.mu.Unlock()
	ts.goAway()
	testutil.WaitFor(t, 10*time.Second, "the client to see the server's go-away", func() (bool, string) {
		s, err := old.session.Open()
		if err == nil {
			s.Close()
		}
		return errors.Is(err, yamux.ErrRemoteGoAway), fmt.Sprintf("open: %v", err)
	})
	say(t, p, ts.addr, "after")
	p.mu.Lock()
	redialed := p.sessions[ts.addr] != old
	p.mu.Unlock()
	if !redialed {
		t.Fatal("the call did not dial a new session")
	}
}

// Calls to a server whose dial hangs do not wait for calls to another
// server: the dial runs outside the pool's lock.
func TestPool_HangingDialDelaysOnlyItsServer(t *testing.T) {
	ts := startTestServer(t)
	p := NewPool()
	defer p.Close()
	release := make(chan struct{})
	defer close(release)
	const hung = "10.255.255.1:4647"
	p.Dial = func(ctx context.Context, addr string) (net.Conn, error) {
		if addr == hung {
			<-release
			return nil, errors.New("released")
		}
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	go func() { _ = p.RPC(context.Background(), hung, "Echo.Say", &EchoArgs{}, &EchoReply{}) }()
	testutil.WaitFor(t, 10*time.Second, "the hung dial to start", func() (bool, string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.dialing[hung] != nil, "not dialing yet"
	})
	say(t, p, ts.addr, "meanwhile")
}

// BenchmarkPool_SequentialCalls measures a small call over a reused
// stream: go test -bench Pool -benchmem ./internal/rpcwire
func BenchmarkPool_SequentialCalls(b *testing.B) {
	ts := startTestServer(b)
	p := NewPool()
	defer p.Close()
	b.ReportAllocs()
	for b.Loop() {
		say(b, p, ts.addr, "x")
	}
}
