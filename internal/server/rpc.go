package server

import (
	"errors"
	"io"
	"net"
	"net/rpc"
	"sync"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// rpcServer serves the internal RPC that clients use: one TCP connection
// per client, multiplexed by yamux, one net/rpc call (msgpack-encoded) per
// stream. Every endpoint family is registered (rpc_endpoints.go): the
// handlers are the same endpoint methods the HTTP API calls.
type rpcServer struct {
	srv *Server
	rpc *rpc.Server
	ln  net.Listener

	// conns are the open connections (RPC and raft), closed at shutdown
	// so peers and clients see this server gone at once.
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := &rpcServer{srv: s, rpc: rpc.NewServer(), ln: ln, conns: map[net.Conn]struct{}{}}
	if err := s.registerEndpoints(r.rpc); err != nil {
		return err
	}
	go func() {
		<-s.shutdownCh
		ln.Close()
		r.closeAll()
	}()
	go r.accept()
	return nil
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
		go r.serveConn(conn)
	}
}

// track records an open connection; false once the server shuts down.
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

func (r *rpcServer) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

// serveConn reads the protocol byte: raft connections go to raft's
// transport, RPC ones are served here as a yamux session.
func (r *rpcServer) serveConn(conn net.Conn) {
	first := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, first); err != nil {
		r.untrack(conn)
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	switch {
	case first[0] == structs.RPCRaftByte && r.srv.raftLayer != nil:
		// Raft owns the connection now; closing it forgets it here too.
		r.srv.raftLayer.handoff(&untrackOnClose{Conn: conn, untrack: r.untrack})
		return
	case first[0] != structs.RPCMultiplexByte:
		r.srv.log.Warn("rpc: unknown protocol; closing", "remote", conn.RemoteAddr(), "byte", first[0])
		r.untrack(conn)
		conn.Close()
		return
	}
	defer r.untrack(conn)
	defer conn.Close()
	session, err := yamux.Server(conn, rpcwire.YamuxConfig())
	if err != nil {
		return
	}
	defer session.Close()
	for {
		stream, err := session.Accept()
		if err != nil {
			return
		}
		go r.rpc.ServeCodec(msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle))
	}
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
