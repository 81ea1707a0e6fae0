package server

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/connlimit"
	"github.com/drover-project/drover/internal/structs"
)

// The RPC listener answers from its table as net/rpc's server would: the
// endpoint's reply, its error with the code, and an error for a name it
// does not serve.
func TestRPC_DispatchFromTable(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := newRPCServer(s, connlimit.Wrap(ln, 0))
	r.methods = map[string]rpcMethod{
		"Echo.Leader": rpcMethodOf(func(_ context.Context, args *structs.GenericRequest) (*structs.StatusLeaderResponse, error) {
			if args.Region == "" {
				return nil, BadRequest("region: missing")
			}
			return &structs.StatusLeaderResponse{Leader: "leader-of-" + args.Region}, nil
		}),
	}
	r.start()
	session := dialSession(t, ln.Addr().String())

	var reply structs.StatusLeaderResponse
	if err := callOnSession(t, session, "Echo.Leader", &structs.GenericRequest{QueryOptions: structs.QueryOptions{Region: "r1"}}, &reply); err != nil || reply.Leader != "leader-of-r1" {
		t.Fatalf("call: %+v, %v", reply, err)
	}
	err = callOnSession(t, session, "Echo.Leader", &structs.GenericRequest{}, &reply)
	if err == nil || !strings.Contains(err.Error(), "region: missing") {
		t.Fatalf("endpoint error: %v", err)
	}
	err = callOnSession(t, session, "Echo.Nope", &structs.GenericRequest{}, &reply)
	if err == nil || !strings.Contains(err.Error(), "can't find method Echo.Nope") {
		t.Fatalf("unknown method: %v", err)
	}
}
