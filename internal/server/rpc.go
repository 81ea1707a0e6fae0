package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"runtime/debug"
	"sync"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/connlimit"
	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// rpcServer serves the internal RPC that clients use: one TCP connection
// per client, multiplexed by yamux, net/rpc calls (msgpack-encoded) one
// after another on each stream. The methods are the method table
// (methods.go), by wire name: the same methods the HTTP API calls. Every
// goroutine it starts is tracked by the server; on shutdown the listener
// and every open connection close, so they all return.
type rpcServer struct {
	srv     *Server
	methods map[string]rpcMethod // by wire name: "Job.Register"
	ln      net.Listener

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open client connections; nil once closed
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := newRPCServer(s, connlimit.Wrap(ln, s.config.RPCMaxConnsPerClient))
	r.methods = s.rpcMethods()
	r.start()
	return nil
}

// start accepts connections until the server shuts down, which closes
// every open one.
func (r *rpcServer) start() {
	context.AfterFunc(r.srv.ctx, r.close)
	r.srv.goTracked("rpc accept", func(context.Context) { r.accept() })
}

func newRPCServer(s *Server, ln net.Listener) *rpcServer {
	return &rpcServer{srv: s, ln: ln, conns: map[net.Conn]struct{}{}}
}

// close stops accepting and ends every open connection (and with it each
// yamux session and its streams).
func (r *rpcServer) close() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

// track records an open connection; false when the server already closed.
func (r *rpcServer) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *rpcServer) untrack(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.conns, c)
}

func (r *rpcServer) accept() {
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				r.srv.log.Error("rpc: accept failed", "error", err)
			}
			return
		}
		if !r.track(conn) {
			conn.Close()
			return
		}
		r.srv.goTracked("rpc connection", func(context.Context) { r.serveConn(conn) })
	}
}

// serveConn reads the protocol byte: a raft connection goes to raft's
// transport (which owns it from then on), an RPC one is served here as a
// yamux session.
func (r *rpcServer) serveConn(conn net.Conn) {
	conn, first, err := r.negotiate(conn)
	if err == nil && first == structs.RPCRaftByte && r.srv.cluster.RaftLayer() != nil {
		r.srv.cluster.RaftLayer().Handoff(&untrackOnClose{Conn: conn, untrack: r.untrack})
		return
	}
	defer r.untrack(conn)
	defer conn.Close()
	if err != nil || first != structs.RPCMultiplexByte {
		r.srv.log.Warn("rpc: refused connection", "remote", conn.RemoteAddr(), "error", err)
		return
	}
	session, err := yamux.Server(conn, yamuxConfig())
	if err != nil {
		return
	}
	defer session.Close()
	for {
		stream, err := session.Accept()
		if err != nil {
			return
		}
		// serveStream returns once the stream closes and its calls finish.
		r.srv.goTracked("rpc stream", func(context.Context) { r.serveStream(stream) })
	}
}

func yamuxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.LogOutput = io.Discard
	return c
}

// untrackOnClose is a connection handed to raft: its Close also drops it
// from the RPC server's open connections.
type untrackOnClose struct {
	net.Conn
	untrack func(net.Conn)
	once    sync.Once
}

func (c *untrackOnClose) Close() error {
	c.once.Do(func() { c.untrack(c.Conn) })
	return c.Conn.Close()
}

// serveStream serves the calls of one yamux stream, one at a time, so a
// handler that panics can be recovered (net/rpc's own ServeCodec would run
// each call on a goroutine of its own, where a panic kills the process).
//
// A stream that starts with structs.RPCStreamHTTPByte carries HTTP
// instead: a client-only agent forwarding the cluster API's requests,
// answered by this server's agent (Server.ForwardedHTTP) as it answers its
// own HTTP listener, the caller's token checked there.
func (r *rpcServer) serveStream(stream io.ReadWriteCloser) {
	br := bufio.NewReaderSize(stream, 16)
	if first, err := br.Peek(1); err != nil {
		stream.Close()
		return
	} else if first[0] == structs.RPCStreamHTTPByte {
		_, _ = br.Discard(1)
		conn, isConn := stream.(net.Conn)
		h := r.srv.ForwardedHTTP.Load()
		if !isConn || h == nil {
			r.srv.log.Warn("rpc: refused a forwarded HTTP stream: this agent serves no HTTP API")
			stream.Close()
			return
		}
		rpcwire.ServeHTTPStream(r.srv.ctx, &rpcwire.PeekConn{Conn: conn, R: br}, *h)
		return
	}
	codec := msgpackrpc.NewCodecFromHandle(true, true, &peekedStream{ReadWriteCloser: stream, r: br}, structs.StructArrayHandle)
	defer codec.Close()
	for r.serveCall(codec) {
	}
}

// peekedStream reads its first bytes again from the reader that peeked them.
type peekedStream struct {
	io.ReadWriteCloser
	r *bufio.Reader
}

func (p *peekedStream) Read(b []byte) (int, error) { return p.r.Read(b) }

// serveCall serves one call and reports whether the stream may carry
// another: not after a call it could not read (unknown method,
// undecodable arguments) or whose handler panicked; those callers get an
// error reply, as net/rpc's own server would answer them.
func (r *rpcServer) serveCall(codec rpc.ServerCodec) (more bool) {
	var req rpc.Request
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		r.srv.log.Error("rpc: handler panicked", "method", req.ServiceMethod, "panic", p, "stack", string(debug.Stack()))
		replyError(codec, &req, fmt.Sprintf("rpc: internal error in %s", req.ServiceMethod))
		more = false
	}()
	if codec.ReadRequestHeader(&req) != nil {
		return false
	}
	method, ok := r.methods[req.ServiceMethod]
	if !ok {
		_ = codec.ReadRequestBody(nil) // discard the arguments
		replyError(codec, &req, "rpc: can't find method "+req.ServiceMethod)
		return false
	}
	args := method.newArgs()
	if err := codec.ReadRequestBody(args); err != nil {
		replyError(codec, &req, err.Error())
		return false
	}
	reply, err := method.serve(r.srv.ctx, args)
	if err != nil {
		replyError(codec, &req, err.Error())
		return true
	}
	_ = codec.WriteResponse(&rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq}, reply)
	return true
}

// replyError answers the call req with an error and no reply body.
func replyError(codec rpc.ServerCodec, req *rpc.Request, msg string) {
	_ = codec.WriteResponse(&rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq, Error: msg}, struct{}{})
}

// negotiate reads the connection's first byte and returns the connection
// to serve and its protocol byte: the plain connection, or, for
// RPCTLSByte, the TLS session and the byte that follows inside it. With
// RPCTLS configured, plaintext connections are refused. All of it must
// happen within the handshake timeout, so a silent peer cannot hold a
// connection (and a slot of its IP's cap) open.
func (r *rpcServer) negotiate(conn net.Conn) (net.Conn, byte, error) {
	if d := r.srv.config.RPCHandshakeTimeout; d > 0 {
		_ = conn.SetDeadline(time.Now().Add(d))
	}
	first, err := readByte(conn)
	if err != nil {
		return conn, 0, err
	}
	cfg := r.srv.config.RPCTLS
	switch {
	case first == structs.RPCTLSByte && cfg != nil:
		tc := tls.Server(conn, cfg)
		if err := tc.Handshake(); err != nil {
			return conn, 0, fmt.Errorf("tls handshake: %w", err)
		}
		conn = tc
		if first, err = readByte(conn); err != nil {
			return conn, 0, err
		}
	case cfg != nil:
		return conn, 0, fmt.Errorf("plaintext RPC refused: this server requires TLS")
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, first, nil
}

func readByte(conn net.Conn) (byte, error) {
	b := make([]byte, 1)
	_, err := io.ReadFull(conn, b)
	return b[0], err
}
