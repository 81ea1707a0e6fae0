package server

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// rpcCaller dials a server's RPC listener as a client or a forwarding
// server would: the multiplex byte, a yamux session, one msgpack net/rpc
// call per stream.
type rpcCaller struct {
	t       *testing.T
	session *yamux.Session
	// handle encodes the calls: structs as arrays, as Drover's clients
	// and servers send them, unless a test sets the form of older ones.
	handle *codec.MsgpackHandle
}

func dialRPC(t *testing.T, s *Server) *rpcCaller {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeRPC(ln); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte{structs.RPCMultiplexByte}); err != nil {
		t.Fatal(err)
	}
	session, err := yamux.Client(conn, rpcwire.YamuxConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return &rpcCaller{t: t, session: session, handle: structs.StructArrayHandle}
}

func (c *rpcCaller) call(method string, args, reply any) error {
	stream, err := c.session.Open()
	if err != nil {
		c.t.Fatal(err)
	}
	defer stream.Close()
	return msgpackrpc.CallWithCodec(msgpackrpc.NewCodecFromHandle(true, true, stream, c.handle), method, args, reply)
}

// Endpoints answer the same over the RPC listener as in-process: a write
// made over RPC is read back both ways, lists and single reads agree, an
// absent object is a nil answer with the table's index, and an error
// reaches the caller with its message.
func TestRPCEndpoints_SameAnswerAsInProcess(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	rc := dialRPC(t, s)
	ctx := context.Background()

	var reg structs.JobRegisterResponse
	if err := rc.call("Job.Register", &structs.JobRegisterArgs{Job: testJob("web"),
		WriteRequest: structs.WriteRequest{Namespace: structs.DefaultNamespace}}, &reg); err != nil {
		t.Fatalf("Job.Register over RPC: %v", err)
	}
	if reg.EvalID == "" || reg.Index == 0 {
		t.Fatalf("register reply: %+v", reg)
	}

	get := &structs.JobSpecificRequest{JobID: "web", QueryOptions: structs.QueryOptions{Namespace: structs.DefaultNamespace}}
	var overRPC structs.SingleJobResponse
	if err := rc.call("Job.GetJob", get, &overRPC); err != nil {
		t.Fatal(err)
	}
	local, err := JobGetJob.Call(ctx, s, get)
	if err != nil {
		t.Fatal(err)
	}
	if overRPC.Job == nil || overRPC.Job.ID != local.Job.ID || overRPC.Job.ModifyIndex != local.Job.ModifyIndex ||
		overRPC.Index != local.Index || overRPC.KnownLeader != local.KnownLeader {
		t.Fatalf("Job.GetJob over RPC %+v (job %+v), in-process %+v", overRPC.QueryMeta, overRPC.Job, local.QueryMeta)
	}

	// The register's eval is scheduled meanwhile (and blocks: no nodes);
	// the two list answers below must see the same state, so let the
	// pipeline settle first (it raced the second read under load).
	testutil.WaitFor(t, 10*time.Second, "the register's eval to be processed", func() bool {
		e, err := s.State().EvalByID(nil, reg.EvalID)
		st := s.Stats().Broker
		return err == nil && e != nil && e.TerminalStatus() && st.TotalReady == 0 && st.TotalUnacked == 0 && st.TotalPending == 0
	})
	list := &structs.EvalListRequest{JobID: "web", QueryOptions: structs.QueryOptions{Namespace: structs.DefaultNamespace}}
	var evalsRPC structs.EvalListResponse
	if err := rc.call("Eval.List", list, &evalsRPC); err != nil {
		t.Fatal(err)
	}
	evalsLocal, err := EvalList.Call(ctx, s, list)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(evals []*structs.Evaluation) []string {
		var out []string
		for _, e := range evals {
			out = append(out, e.ID)
		}
		return out
	}
	if !slices.Equal(ids(evalsRPC.Evals), ids(evalsLocal.Evals)) || !slices.Contains(ids(evalsRPC.Evals), reg.EvalID) ||
		evalsRPC.Index != evalsLocal.Index {
		t.Fatalf("Eval.List over RPC %v @%d, in-process %v @%d", ids(evalsRPC.Evals), evalsRPC.Index, ids(evalsLocal.Evals), evalsLocal.Index)
	}

	missing := &structs.JobSpecificRequest{JobID: "nope", QueryOptions: structs.QueryOptions{Namespace: structs.DefaultNamespace}}
	var absent structs.SingleJobResponse
	if err := rc.call("Job.GetJob", missing, &absent); err != nil || absent.Job != nil || absent.Index == 0 {
		t.Fatalf("absent job over RPC: %v %+v", err, absent)
	}

	var dereg structs.JobDeregisterResponse
	err = rc.call("Job.Deregister", &structs.JobDeregisterArgs{JobID: "nope",
		WriteRequest: structs.WriteRequest{Namespace: structs.DefaultNamespace}}, &dereg)
	if err == nil || !strings.Contains(err.Error(), `job "nope" not found`) {
		t.Fatalf("deregister of an unknown job over RPC: %v", err)
	}

	var leader structs.StatusLeaderResponse
	if err := rc.call("Status.Leader", &structs.GenericRequest{}, &leader); err != nil || leader.Leader != s.Leader() {
		t.Fatalf("Status.Leader over RPC: %v %q, want %q", err, leader.Leader, s.Leader())
	}
}
