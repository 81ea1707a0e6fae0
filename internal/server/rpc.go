package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/rpc"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/connlimit"
	"github.com/drover-project/drover/internal/structs"
)

// rpcServer serves the internal RPC that clients use: one TCP connection
// per client, multiplexed by yamux, one net/rpc call (msgpack-encoded) per
// stream. Every endpoint family is registered (rpc_endpoints.go): the
// handlers are the same endpoint methods the HTTP API calls. Every
// goroutine it starts is tracked by the server; on shutdown the listener
// and every open connection close, so they all return.
type rpcServer struct {
	srv *Server
	rpc *rpc.Server
	ln  net.Listener
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	ln = connlimit.Wrap(ln, s.config.RPCMaxConnsPerClient)
	r := &rpcServer{srv: s, rpc: rpc.NewServer(), ln: ln}
	if err := s.registerEndpoints(r.rpc); err != nil {
		return err
	}
	context.AfterFunc(s.ctx, func() { ln.Close() })
	s.goTracked(func(context.Context) { r.accept() })
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
		r.srv.goTracked(func(context.Context) { r.serveConn(conn) })
	}
}

// serveConn reads the protocol byte, then serves the yamux session. The
// connection closes when the server shuts down, which ends the session,
// its streams and so every goroutine serving them.
func (r *rpcServer) serveConn(conn net.Conn) {
	defer conn.Close()
	stop := context.AfterFunc(r.srv.ctx, func() { conn.Close() })
	defer stop()
	first := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, first); err != nil || first[0] != structs.RPCMultiplexByte {
		r.srv.log.Warn("rpc: unknown protocol; closing", "remote", conn.RemoteAddr())
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
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
		r.srv.goTracked(func(context.Context) { r.serveStream(stream) })
	}
}

func yamuxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.LogOutput = io.Discard
	return c
}
