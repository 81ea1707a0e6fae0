package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/rpc"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/structs"
)

// rpcServer serves the internal RPC that clients use: one TCP connection
// per client, multiplexed by yamux, one net/rpc call (msgpack-encoded) per
// stream. The handlers call the same endpoint methods as the HTTP API.
type rpcServer struct {
	srv *Server
	rpc *rpc.Server
	ln  net.Listener
}

// ServeRPC accepts client connections on ln until the server shuts down.
func (s *Server) ServeRPC(ln net.Listener) error {
	r := &rpcServer{srv: s, rpc: rpc.NewServer(), ln: ln}
	if err := r.rpc.RegisterName("Node", &nodeRPC{s: s}); err != nil {
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
		go r.rpc.ServeCodec(msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle))
	}
}

func yamuxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.LogOutput = io.Discard
	return c
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-n.s.shutdownCh:
			cancel()
		case <-ctx.Done():
		}
	}()
	out, err := n.s.Node.GetClientAllocs(ctx, args)
	return fill(reply, out, err)
}

func (n *nodeRPC) UpdateAlloc(args *structs.AllocClientUpdateArgs, reply *structs.GenericResponse) error {
	out, err := n.s.Node.UpdateAllocs(args)
	return fill(reply, out, err)
}

// fill copies an endpoint's reply into net/rpc's reply value. An error
// goes out with its code (structs.EncodeRPCError): net/rpc sends only text.
func fill[T any](reply *T, out *T, err error) error {
	if err != nil {
		return structs.EncodeRPCError(err)
	}
	*reply = *out
	return nil
}
