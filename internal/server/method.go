package server

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// Every RPC method is registered once, in methods.go, with everything the
// server decides about it: its wire name ("Job.Register"), its handler,
// whether it reads or writes, which server answers it, and who may call
// it. Every transport calls a method through its registration: the HTTP
// API in-process (JobRegister.Call), the RPC listener by wire name
// (rpcMethods), a follower forwarding to the leader under the same name.
// So the caller's token is checked once per call, on the server that
// answers, by the rule in the table; a handler only answers.

// kind says whether a method reads or writes. A write always goes to the
// leader; a read may be answered stale by any server when it asks.
// TestMethods_KindMatchesArguments holds it equal to what its argument
// type says (QueryOptions reads, WriteRequest writes).
type kind uint8

const (
	read kind = iota
	write
)

// route says which server answers.
type route uint8

const (
	// toLeader: the leader answers writes and reads; a follower forwards
	// them (forward.go), except a read that allows a stale answer.
	toLeader route = iota
	// local: the server that receives the call answers it (its own
	// status, region, raft view), never forwarded.
	local
)

// spec is a method's registration, without its types.
type spec struct {
	name   string
	kind   kind
	route  route
	access access
}

// Method is one registered RPC method: E is the endpoint type whose
// method answers it, P its argument and R its reply.
type Method[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any] struct {
	spec
	handler func(*E, context.Context, P) (*R, error)
}

// MethodRef names a registered method (the HTTP layer's route table
// binds routes to them).
type MethodRef interface{ Name() string }

// registered is a Method as the listener and the tests see it.
type registered interface {
	describe() *spec
	rpc(s *Server) rpcMethod
}

// registry holds every registered method by wire name.
var registry = map[string]registered{}

func register[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any](name string, k kind, r route, a access, h func(*E, context.Context, P) (*R, error)) *Method[E, A, P, R] {
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("server: method %s registered twice", name))
	}
	m := &Method[E, A, P, R]{spec: spec{name: name, kind: k, route: r, access: a}, handler: h}
	registry[name] = m
	return m
}

// reads and writes register a method answered by the leader (reads by
// any server when they allow a stale answer); localRead and localWrite
// one answered by the server asked.
func reads[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any](name string, a access, h func(*E, context.Context, P) (*R, error)) *Method[E, A, P, R] {
	return register(name, read, toLeader, a, h)
}

func writes[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any](name string, a access, h func(*E, context.Context, P) (*R, error)) *Method[E, A, P, R] {
	return register(name, write, toLeader, a, h)
}

func localRead[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any](name string, a access, h func(*E, context.Context, P) (*R, error)) *Method[E, A, P, R] {
	return register(name, read, local, a, h)
}

func localWrite[E ~struct{ srv *Server }, A any, P interface {
	*A
	structs.RPCInfo
}, R any](name string, a access, h func(*E, context.Context, P) (*R, error)) *Method[E, A, P, R] {
	return register(name, write, local, a, h)
}

// Name is the method's wire name.
func (m *Method[E, A, P, R]) Name() string { return m.name }

// Call makes the call on s: checks the caller's token against the
// method's rule, sends it to the leader when the route says so (the
// leader's answer is the reply), and otherwise answers it here.
func (m *Method[E, A, P, R]) Call(ctx context.Context, s *Server, args P) (*R, error) {
	// A cluster is one region (federation is not built): a call
	// addressed to another region is refused by name, where Nomad would
	// forward it (or answer "No path to region"), never answered with
	// this region's state.
	if r := args.RequestRegion(); r != "" && r != s.config.Region {
		return nil, BadRequest("region: %q is not this cluster's region %q (Drover does not federate regions)", r, s.config.Region)
	}
	if err := s.authorizeCall(&m.spec, args); err != nil {
		return nil, err
	}
	if m.route == toLeader {
		reply := new(R)
		if done, err := s.forward(ctx, &m.spec, args, reply); done {
			return reply, err
		}
	}
	return m.handler(&E{srv: s}, ctx, args)
}

// On binds the method to s, as a function the HTTP layer hands around.
func (m *Method[E, A, P, R]) On(s *Server) func(context.Context, P) (*R, error) {
	return func(ctx context.Context, args P) (*R, error) { return m.Call(ctx, s, args) }
}

func (m *Method[E, A, P, R]) describe() *spec { return &m.spec }

// rpc adapts the method to the RPC listener. Its error goes out with its
// code (rpcwire.Encode), since net/rpc carries only the text.
func (m *Method[E, A, P, R]) rpc(s *Server) rpcMethod {
	return rpcMethod{
		args: reflect.TypeFor[A](), reply: reflect.TypeFor[R](),
		newArgs: func() any { return P(new(A)) },
		serve: func(ctx context.Context, args any) (any, error) {
			s.config.Metrics.Count("nomad.rpc.request", 1, "method", m.name)
			reply, err := m.Call(ctx, s, args.(P))
			if err != nil {
				s.config.Metrics.Count("nomad.rpc.request_error", 1, "method", m.name)
				return nil, rpcwire.Encode(err, ErrorCode(err))
			}
			return reply, nil
		},
	}
}

// rpcMethod is one method as the RPC listener calls it.
type rpcMethod struct {
	newArgs func() any                                       // an empty argument value to decode into
	serve   func(ctx context.Context, args any) (any, error) // the method on those arguments
	// args and reply are the call's types: the structs reachable from
	// them are the RPC format (TestRPCFields_OnlyEverAppended).
	args, reply reflect.Type
}

// rpcMethods is every registered method, by wire name, bound to s.
func (s *Server) rpcMethods() map[string]rpcMethod {
	out := make(map[string]rpcMethod, len(registry))
	for name, m := range registry {
		out[name] = m.rpc(s)
	}
	return out
}

// MethodNames lists every registered method's wire name, sorted.
func MethodNames() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
