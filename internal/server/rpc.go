package server

import (
	"errors"
	"io"
	"net"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// rpcServer serves the internal RPC that clients use: one TCP connection
// per client, multiplexed by yamux, one net/rpc call (msgpack-encoded) per
// stream. The handlers call the same endpoint methods as the HTTP API.
type rpcServer struct {
	srv *Server
	rpc *rpcDispatcher
	ln  net.Listener
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := &rpcServer{srv: s, rpc: s.rpcEndpoints(), ln: ln}
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
		go r.rpc.serve(r.srv.shutdownCtx, msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle))
	}
}

// rpcEndpoints registers every endpoint family the RPC listener serves.
func (s *Server) rpcEndpoints() *rpcDispatcher {
	d := newRPCDispatcher()
	d.register("Node", &nodeRPC{s: s})
	d.register("Eval", s.Eval)
	d.register("Cluster", s.Cluster)
	return d
}

// nodeRPC exposes the Node endpoints to clients.
type nodeRPC struct{ s *Server }

func (n *nodeRPC) Register(args *structs.NodeRegisterArgs, reply *structs.NodeUpdateResponse) error {
	out, err := n.s.Node.ClientRegister(args)
	return fill(reply, out, err)
}

func (n *nodeRPC) UpdateStatus(args *structs.NodeHeartbeatArgs, reply *structs.NodeUpdateResponse) error {
	out, err := n.s.Node.Heartbeat(args)
	return fill(reply, out, err)
}

func (n *nodeRPC) GetClientAllocs(args *structs.NodeAllocsArgs, reply *structs.NodeAllocsResponse) error {
	out, err := n.s.Node.GetClientAllocs(n.s.shutdownCtx, args)
	return fill(reply, out, err)
}

func (n *nodeRPC) UpdateAlloc(args *structs.AllocClientUpdateArgs, reply *structs.GenericResponse) error {
	out, err := n.s.Node.UpdateAllocs(args)
	return fill(reply, out, err)
}

// fill copies an endpoint's reply into net/rpc's reply value.
func fill[T any](reply *T, out *T, err error) error {
	if err != nil {
		return err
	}
	*reply = *out
	return nil
}
