package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// With ACLs on, the calls only servers make (a follower's workers at the
// leader's broker and plan queue) need the server credential: neither no
// token nor a management token will do.
func TestServerOnlyCalls_NeedTheServerCredential(t *testing.T) {
	s, _ := aclServer(t, "")
	mgmt := bootstrap(t, s)
	testutil.WaitFor(t, 10*time.Second, "the first root key", func() bool {
		_, ok := s.Auth().ServerCredential()
		return ok
	})
	ctx := context.Background()
	dequeue := func(token string) error {
		_, err := EvalDequeue.Call(ctx, s, &structs.EvalDequeueRequest{Schedulers: []string{"service"}, Timeout: time.Millisecond,
			WriteRequest: structs.WriteRequest{AuthToken: token}})
		return err
	}
	for name, token := range map[string]string{"no token": "", "management token": mgmt.SecretID, "wrong credential": "00ff"} {
		if err := dequeue(token); ErrorCode(err) != 403 {
			t.Errorf("Eval.Dequeue with %s: %v, want 403", name, err)
		}
		_, err := PlanSubmit.Call(ctx, s, &structs.PlanSubmitRequest{Plan: &structs.Plan{}, WriteRequest: structs.WriteRequest{AuthToken: token}})
		if ErrorCode(err) != 403 {
			t.Errorf("Plan.Submit with %s: %v, want 403", name, err)
		}
		_, err = EvalUpdate.Call(ctx, s, &structs.EvalUpdateArgs{WriteRequest: structs.WriteRequest{AuthToken: token}})
		if ErrorCode(err) != 403 {
			t.Errorf("Eval.Update with %s: %v, want 403", name, err)
		}
		for _, m := range []*Method[EvalEndpoint, structs.EvalAckRequest, *structs.EvalAckRequest, structs.GenericResponse]{EvalAck, EvalNack} {
			_, err = m.Call(ctx, s, &structs.EvalAckRequest{EvalID: "e", Token: "t", WriteRequest: structs.WriteRequest{AuthToken: token}})
			if ErrorCode(err) != 403 {
				t.Errorf("%s with %s: %v, want 403", m.Name(), name, err)
			}
		}
	}
	cred, _ := s.Auth().ServerCredential()
	if err := dequeue(cred); err != nil {
		t.Fatalf("Eval.Dequeue with the server credential: %v", err)
	}
	// A follower's worker acks and nacks with the credential (remoteBackend):
	// the broker answers (an unknown eval), the ACL check does not refuse.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeRPC(ln); err != nil {
		t.Fatal(err)
	}
	backend := remoteBackend{s: s, leader: ln.Addr().String()}
	for name, call := range map[string]func(string, string) error{"Eval.Ack": backend.Ack, "Eval.Nack": backend.Nack} {
		if err := call("no-such-eval", "t"); err == nil || strings.Contains(err.Error(), ErrPermissionDenied.Error()) {
			t.Errorf("%s with the server credential: %v, want the broker's refusal", name, err)
		}
	}
}
