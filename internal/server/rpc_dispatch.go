package server

import (
	"context"
	"fmt"
	"net/rpc"
	"reflect"
	"sort"

	"github.com/drover-project/drover/internal/rpcwire"
)

// rpcDispatcher maps "Family.Method" names to handlers. It accepts the
// endpoint shape, func(ctx, *Args) (*Reply, error), so the same endpoint
// methods the HTTP API calls answer the RPC listener (client calls and
// followers forwarding to the leader), and net/rpc's shape, func(*Args,
// *Reply) error, for adapters.
type rpcDispatcher struct {
	methods map[string]rpcMethod
}

type rpcMethod struct {
	fn       reflect.Value
	argType  reflect.Type // the element type of the *Args parameter
	endpoint bool         // endpoint shape (else net/rpc shape)
	reply    reflect.Type // net/rpc shape: the element type of *Reply
}

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errorType = reflect.TypeFor[error]()
)

func newRPCDispatcher() *rpcDispatcher { return &rpcDispatcher{methods: map[string]rpcMethod{}} }

// register adds every method of receiver that has one of the two shapes
// as family.Method; a name registered earlier wins.
func (d *rpcDispatcher) register(family string, receiver any) {
	v := reflect.ValueOf(receiver)
	t := v.Type()
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		name := family + "." + m.Name
		if _, taken := d.methods[name]; taken {
			continue
		}
		if h, ok := asRPCMethod(v.Method(i)); ok {
			d.methods[name] = h
		}
	}
}

func asRPCMethod(fn reflect.Value) (rpcMethod, bool) {
	ft := fn.Type()
	isPtr := func(t reflect.Type) bool { return t.Kind() == reflect.Pointer }
	switch {
	case ft.NumIn() == 2 && ft.In(0) == ctxType && isPtr(ft.In(1)) &&
		ft.NumOut() == 2 && isPtr(ft.Out(0)) && ft.Out(1) == errorType:
		return rpcMethod{fn: fn, argType: ft.In(1).Elem(), endpoint: true}, true
	case ft.NumIn() == 2 && isPtr(ft.In(0)) && isPtr(ft.In(1)) &&
		ft.NumOut() == 1 && ft.Out(0) == errorType:
		return rpcMethod{fn: fn, argType: ft.In(0).Elem(), reply: ft.In(1).Elem()}, true
	}
	return rpcMethod{}, false
}

// names lists the registered methods (for tests and errors).
func (d *rpcDispatcher) names() []string {
	out := make([]string, 0, len(d.methods))
	for n := range d.methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// serve answers calls on codec until the stream ends.
func (d *rpcDispatcher) serve(ctx context.Context, codec rpc.ServerCodec) {
	defer codec.Close()
	for {
		var req rpc.Request
		if err := codec.ReadRequestHeader(&req); err != nil {
			return
		}
		m, ok := d.methods[req.ServiceMethod]
		if !ok {
			_ = codec.ReadRequestBody(nil)
			d.reply(codec, &req, nil, fmt.Errorf("rpc: can't find method %s", req.ServiceMethod))
			continue
		}
		args := reflect.New(m.argType)
		if err := codec.ReadRequestBody(args.Interface()); err != nil {
			d.reply(codec, &req, nil, fmt.Errorf("rpc: decode %s arguments: %w", req.ServiceMethod, err))
			continue
		}
		reply, err := m.call(ctx, args)
		d.reply(codec, &req, reply, err)
	}
}

func (m rpcMethod) call(ctx context.Context, args reflect.Value) (any, error) {
	if m.endpoint {
		out := m.fn.Call([]reflect.Value{reflect.ValueOf(ctx), args})
		err, _ := out[1].Interface().(error)
		if out[0].IsNil() {
			return nil, err
		}
		return out[0].Interface(), err
	}
	reply := reflect.New(m.reply)
	out := m.fn.Call([]reflect.Value{args, reply})
	err, _ := out[0].Interface().(error)
	return reply.Interface(), err
}

// reply writes one response; an error travels with its HTTP status.
func (d *rpcDispatcher) reply(codec rpc.ServerCodec, req *rpc.Request, body any, err error) {
	resp := rpc.Response{ServiceMethod: req.ServiceMethod, Seq: req.Seq}
	if err != nil {
		resp.Error = rpcwire.EncodeError(err.Error(), ErrorCode(err))
		body = struct{}{}
	} else if body == nil {
		body = struct{}{}
	}
	_ = codec.WriteResponse(&resp, body)
}
