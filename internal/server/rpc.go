package server

import (
	"errors"
	"io"
	"net"
	"net/rpc"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

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
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := &rpcServer{srv: s, rpc: rpc.NewServer(), ln: ln}
	if err := s.registerEndpoints(r.rpc); err != nil {
		return err
	}
	if err := r.rpc.RegisterName("ACL", &aclRPC{s: s}); err != nil {
		return err
	}
	go func() {
		<-s.shutdownCh
		ln.Close()
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
		go r.serveConn(conn)
	}
}

// serveConn reads the protocol byte, then serves the yamux session.
func (r *rpcServer) serveConn(conn net.Conn) {
	defer conn.Close()
	conn, err := r.negotiate(conn)
	if err != nil {
		r.srv.log.Warn("rpc: refused connection", "remote", conn.RemoteAddr(), "error", err)
		return
	}
	defer conn.Close()
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
		go r.rpc.ServeCodec(msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle))
	}
}

func yamuxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.LogOutput = io.Discard
	return c
}
