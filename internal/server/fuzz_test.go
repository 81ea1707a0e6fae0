package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/rpc"
	"os"
	"reflect"
	"testing"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// fuzzNode has the Node service's method shapes; it validates what it is
// given as the real endpoints do, without raft.
type fuzzNode struct{}

func (fuzzNode) Register(_ context.Context, args *structs.NodeRegisterArgs) (*structs.NodeUpdateResponse, error) {
	if args.Node != nil {
		_ = args.Node.Validate()
		_ = args.Node.Copy()
	}
	return &structs.NodeUpdateResponse{}, nil
}

func (fuzzNode) UpdateStatus(context.Context, *structs.NodeHeartbeatArgs) (*structs.NodeUpdateResponse, error) {
	return &structs.NodeUpdateResponse{}, nil
}

func (fuzzNode) GetClientAllocs(context.Context, *structs.NodeAllocsArgs) (*structs.NodeAllocsResponse, error) {
	return &structs.NodeAllocsResponse{}, nil
}

func (fuzzNode) UpdateAlloc(_ context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error) {
	for _, a := range args.Allocs {
		_ = a.Copy()
	}
	return &structs.GenericResponse{}, nil
}

// fuzzStream is one yamux stream's worth of client bytes; replies go
// nowhere.
type fuzzStream struct{ io.Reader }

func (fuzzStream) Write(p []byte) (int, error) { return len(p), nil }
func (fuzzStream) Close() error                { return nil }

// rpcRequest encodes one msgpack RPC call as a client would send it.
func rpcRequest(method string, args any) []byte {
	var buf bytes.Buffer
	codec := msgpackrpc.NewCodecFromHandle(true, true, struct {
		io.Reader
		io.Writer
		io.Closer
	}{bytes.NewReader(nil), &buf, io.NopCloser(nil)}, structs.MsgpackHandle)
	_ = codec.WriteRequest(&rpc.Request{ServiceMethod: method, Seq: 1}, args)
	return buf.Bytes()
}

// FuzzRPCRequest feeds raw bytes to the RPC server's stream handling:
// header and body decoding with the server's msgpack codec, dispatch, and
// panic recovery. It must never crash or hang.
func FuzzRPCRequest(f *testing.F) {
	f.Add(rpcRequest("Node.Register", &structs.NodeRegisterArgs{Node: &structs.Node{ID: "n1", Name: "x", Datacenter: "dc1",
		Attributes: map[string]string{"kernel.name": "linux"}, Drivers: map[string]*structs.DriverInfo{"exec": {Detected: true}}}}))
	f.Add(rpcRequest("Node.UpdateStatus", &structs.NodeHeartbeatArgs{NodeID: "n1", SecretID: "s", Status: "ready"}))
	f.Add(rpcRequest("Node.GetClientAllocs", &structs.NodeAllocsArgs{NodeID: "n1", QueryOptions: structs.QueryOptions{MinQueryIndex: 5}}))
	f.Add(rpcRequest("Node.UpdateAlloc", &structs.AllocClientUpdateArgs{NodeID: "n1", Allocs: []*structs.Allocation{{ID: "a", ClientStatus: "running",
		TaskStates: map[string]*structs.TaskState{"t": {State: "running"}}}}}))
	f.Add(rpcRequest("Nope.Nope", &structs.NodeHeartbeatArgs{}))
	srv := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r := newRPCServer(srv, nil)
	r.methods = map[string]rpcMethod{
		"Node.Register": rpcMethodOf(fuzzNode{}.Register), "Node.UpdateStatus": rpcMethodOf(fuzzNode{}.UpdateStatus),
		"Node.GetClientAllocs": rpcMethodOf(fuzzNode{}.GetClientAllocs), "Node.UpdateAlloc": rpcMethodOf(fuzzNode{}.UpdateAlloc),
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r.serveStream(fuzzStream{bytes.NewReader(in)})
	})
}

// FuzzSnapshotRestore feeds uploads to the operator snapshot restore's
// checks: header, metadata, size cap, and the scratch-store restore that
// stands between an upload and raft. A payload they pass must restore.
func FuzzSnapshotRestore(f *testing.F) {
	s := testServerFuzz(f)
	var good bytes.Buffer
	if err := s.WriteSnapshot(&good); err == nil {
		f.Add(good.Bytes())
	}
	s.Shutdown()
	f.Add(operatorSnapshot(f, []byte{0x02, 0x80}))
	f.Add(operatorSnapshot(f, bytes.Repeat([]byte{0xc1}, 64)))
	f.Add([]byte("not a snapshot"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, payload, err := SpoolSnapshot(bytes.NewReader(in), 1<<20)
		if err != nil {
			if code := ErrorCode(err); code != 400 && code != 413 {
				t.Fatalf("bad upload answered %d: %v", code, err)
			}
			return
		}
		defer os.Remove(payload.Name())
		defer payload.Close()
		if err := CheckSnapshotPayload(payload); err != nil && ErrorCode(err) != 400 {
			t.Fatalf("bad payload answered %d: %v", ErrorCode(err), err)
		}
	})
}

// testServerFuzz is a dev server with one job, for a realistic seed.
func testServerFuzz(f *testing.F) *Server {
	s, err := New(&Config{NodeName: "fuzz", DevMode: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	if err := s.WaitForLeader(10e9); err != nil {
		f.Fatal(err)
	}
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("web")}); err != nil {
		f.Fatal(err)
	}
	return s
}

// FuzzFilter feeds list filters (?filter=, go-bexpr) to the filters the
// list endpoints compile: over the job, node and alloc list stubs and over
// evaluations as stored. A filter is compiled and evaluated against real
// objects' fields; a bad one is a 400, never a panic.
func FuzzFilter(f *testing.F) {
	for _, seed := range []string{
		`JobID == "web"`, `Status != "pending" and Priority > 10`, `Meta.owner is not empty`,
		`"dc1" in Datacenters`, `TaskStates.t.State == "running"`, `ClientStatus matches "run.*"`, `ID contains "a"`,
		`not (Name == "x") or Drivers.exec.Detected == true`,
	} {
		f.Add(seed)
	}
	job := testJob("web")
	job.Canonicalize()
	job.Meta = map[string]string{"owner": "a"}
	eval := &structs.Evaluation{ID: "e1", JobID: "web", Status: "pending", Priority: 50}
	alloc := &structs.Allocation{ID: "a1", JobID: "web", Job: job, ClientStatus: "running",
		TaskStates: map[string]*structs.TaskState{"t": {State: "running"}}}
	node := &structs.Node{ID: "n1", Name: "n", Attributes: map[string]string{"kernel.name": "linux"},
		Drivers: map[string]*structs.DriverInfo{"exec": {Detected: true}}}
	f.Fuzz(func(t *testing.T, filter string) {
		q := &structs.QueryOptions{Filter: filter}
		check := func(err error) {
			if err != nil && ErrorCode(err) != 400 {
				t.Fatalf("filter %q answered %d: %v", filter, ErrorCode(err), err)
			}
		}
		if m, err := stubFilter(q, func(j *structs.Job) *structs.Job { return j }); err != nil || m == nil {
			check(err)
		} else {
			_, err = m(job)
			check(err)
		}
		if m, err := stubFilter(q, nodeStub); err == nil && m != nil {
			_, err = m(node)
			check(err)
		}
		if m, err := stubFilter(q, allocStub); err == nil && m != nil {
			_, err = m(alloc)
			check(err)
		}
		if m, err := pageFilter[structs.Evaluation](q, nil); err != nil {
			check(err)
		} else {
			_, err = m(eval)
			check(err)
		}
	})
}

// rpcMethodOf adapts a bare function to the RPC listener, for the fuzzer's
// stand-in endpoints (the registered methods adapt themselves: Method.rpc).
func rpcMethodOf[A, R any](endpoint func(context.Context, *A) (*R, error)) rpcMethod {
	return rpcMethod{
		args: reflect.TypeFor[A](), reply: reflect.TypeFor[R](),
		newArgs: func() any { return new(A) },
		serve: func(ctx context.Context, args any) (any, error) {
			reply, err := endpoint(ctx, args.(*A))
			if err != nil {
				return nil, rpcwire.Encode(err, ErrorCode(err))
			}
			return reply, nil
		},
	}
}
