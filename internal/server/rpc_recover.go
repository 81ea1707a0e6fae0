package server

import (
	"fmt"
	"io"
	"net/rpc"
	"runtime/debug"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/drover-project/drover/internal/structs"
)

// serveStream serves the calls of one yamux stream, one at a time, so a
// handler that panics can be recovered: net/rpc's ServeCodec runs each
// call on a goroutine of its own, where a panic kills the process.
func (r *rpcServer) serveStream(stream io.ReadWriteCloser) {
	codec := &headerRecorder{ServerCodec: msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle)}
	defer codec.Close()
	for r.serveCall(codec) {
	}
}

// serveCall serves one call and reports whether the stream may carry
// another. A panicking handler's caller gets an error reply.
func (r *rpcServer) serveCall(codec *headerRecorder) (more bool) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		method := codec.last.ServiceMethod
		r.srv.log.Error("rpc: handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
		_ = codec.WriteResponse(&rpc.Response{
			ServiceMethod: method, Seq: codec.last.Seq,
			Error: fmt.Sprintf("rpc: internal error in %s", method),
		}, struct{}{})
		more = false
	}()
	return r.rpc.ServeRequest(codec) == nil
}

// headerRecorder remembers the header of the request being served, which
// the reply to a panicked call must echo.
type headerRecorder struct {
	rpc.ServerCodec
	last rpc.Request
}

func (c *headerRecorder) ReadRequestHeader(req *rpc.Request) error {
	err := c.ServerCodec.ReadRequestHeader(req)
	c.last = *req
	return err
}
