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
// handler that panics can be recovered (net/rpc's own ServeCodec would run
// each call on a goroutine of its own, where a panic kills the process).
func (r *rpcServer) serveStream(stream io.ReadWriteCloser) {
	codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.StructArrayHandle)
	defer codec.Close()
	for r.serveCall(codec) {
	}
}

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
