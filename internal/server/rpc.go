package server

import (
	"errors"
	"io"
	"net"
	"net/rpc"
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
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := &rpcServer{srv: s, rpc: rpc.NewServer(), ln: ln}
	if err := s.registerEndpoints(r.rpc); err != nil {
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

// serveConn reads the protocol byte: raft connections go to raft's
// transport, RPC ones are served here as a yamux session.
func (r *rpcServer) serveConn(conn net.Conn) {
	first := make([]byte, 1)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, first); err != nil {
		conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	switch {
	case first[0] == structs.RPCRaftByte && r.srv.raftLayer != nil:
		r.srv.raftLayer.handoff(conn)
		return
	case first[0] != structs.RPCMultiplexByte:
		r.srv.log.Warn("rpc: unknown protocol; closing", "remote", conn.RemoteAddr(), "byte", first[0])
		conn.Close()
		return
	}
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
