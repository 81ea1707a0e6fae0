package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func credentialServer(t *testing.T, acl ACLConfig) *Server {
	t.Helper()
	s, err := New(&Config{
		NodeName: "test", DevMode: true, BootstrapExpect: 1, RaftAddr: "127.0.0.1:4647",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RaftTimings: &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond},
		ACL: acl,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	if err := s.WaitUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return s
}

func credNode(id, secret string) *structs.Node {
	n := pipelineNode(id, 1000, 1000)
	n.SecretID = secret
	return n
}

func TestNodeRegistration_RequiresTheClusterCredential(t *testing.T) {
	s := credentialServer(t, ACLConfig{NodeRegistrationToken: "cluster-secret"})
	reg := func(n *structs.Node, cred string) error {
		_, err := NodeRegister.Call(context.Background(), s, &structs.NodeRegisterArgs{Node: n, NodeRegistrationToken: cred})
		return err
	}
	id := "00000000-0000-0000-0000-0000000000aa"
	wantCode(t, reg(credNode(id, "s1"), ""), 403, "Permission denied")
	wantCode(t, reg(credNode(id, "s1"), "wrong"), 403, "Permission denied")
	wantCode(t, reg(credNode(id, ""), "cluster-secret"), 400, "Node.SecretID")
	if err := reg(credNode(id, "s1"), "cluster-secret"); err != nil {
		t.Fatal(err)
	}
	// Even with the credential, nobody takes over an existing node.
	wantCode(t, reg(credNode(id, "s2"), "cluster-secret"), 403, "Permission denied")
	if err := reg(credNode(id, "s1"), "cluster-secret"); err != nil {
		t.Fatalf("re-register with its own secret: %v", err)
	}
	// The node's secret authenticates its later calls.
	_, err := NodeUpdateStatus.Call(context.Background(), s, &structs.NodeHeartbeatArgs{NodeID: id, SecretID: "s2"})
	wantCode(t, err, 403, "SecretID")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = NodeGetClientAllocs.Call(ctx, s, &structs.NodeAllocsArgs{NodeID: id, SecretID: "s2"})
	wantCode(t, err, 403, "SecretID")
	_, err = NodeUpdateAlloc.Call(context.Background(), s, &structs.AllocClientUpdateArgs{NodeID: id, SecretID: ""})
	wantCode(t, err, 403, "SecretID")
}

func TestNodeRegistration_ACLTokenWithNodeWrite(t *testing.T) {
	s := credentialServer(t, ACLConfig{Enabled: true})
	root := bootstrap(t, s)
	ctx := context.Background()
	w := structs.WriteRequest{AuthToken: root.SecretID}
	if _, err := ACLUpsertPolicies.Call(ctx, s, &structs.ACLPolicyUpsertArgs{Policies: []*structs.ACLPolicy{
		{Name: "node-write", Rules: `node { policy = "write" }`}, {Name: "node-read", Rules: `node { policy = "read" }`}}, WriteRequest: w}); err != nil {
		t.Fatal(err)
	}
	mk := func(policy string) string {
		r, err := ACLUpsertTokens.Call(ctx, s, &structs.ACLTokenUpsertArgs{Tokens: []*structs.ACLToken{{Type: "client", Policies: []string{policy}}}, WriteRequest: w})
		if err != nil {
			t.Fatal(err)
		}
		return r.Tokens[0].SecretID
	}
	reg := func(id, cred string) error {
		_, err := NodeRegister.Call(context.Background(), s, &structs.NodeRegisterArgs{Node: credNode(id, "sec-"+id), NodeRegistrationToken: cred})
		return err
	}
	wantCode(t, reg("00000000-0000-0000-0000-0000000000b1", ""), 403, "Permission denied")
	wantCode(t, reg("00000000-0000-0000-0000-0000000000b1", mk("node-read")), 403, "Permission denied")
	if err := reg("00000000-0000-0000-0000-0000000000b1", mk("node-write")); err != nil {
		t.Fatal(err)
	}
}

func TestNodeRegistration_OpenWithoutACLsOrCredential(t *testing.T) {
	s := credentialServer(t, ACLConfig{})
	if _, err := NodeRegister.Call(context.Background(), s, &structs.NodeRegisterArgs{Node: credNode("00000000-0000-0000-0000-0000000000c1", "")}); err != nil {
		t.Fatal(err)
	}
}

// The agent node credential (what a server hands its in-process client)
// registers a node; the server credential, derived from the same key,
// does not, and a refusal says what was missing and which setting sets
// it, wrapping the sentinel the client acts on.
func TestNodeRegistration_AgentNodeCredential(t *testing.T) {
	s := credentialServer(t, ACLConfig{Enabled: true})
	agentCred, ok := s.Auth().AgentNodeCredential()
	serverCred, ok2 := s.Auth().ServerCredential()
	if !ok || !ok2 || agentCred == "" || agentCred == serverCred {
		t.Fatalf("agent credential %q (%v), server credential %q (%v)", agentCred, ok, serverCred, ok2)
	}
	reg := func(id, cred string) error {
		_, err := NodeRegister.Call(context.Background(), s, &structs.NodeRegisterArgs{Node: credNode(id, "sec-"+id), NodeRegistrationToken: cred})
		return err
	}
	for cred, want := range map[string]string{
		"":         "Permission denied: no node registration token was presented; set client { node_registration_token }",
		serverCred: "Permission denied: the node registration token presented is not accepted; set client { node_registration_token }",
	} {
		err := reg("00000000-0000-0000-0000-0000000000d1", cred)
		wantCode(t, err, 403, want)
		if !errors.Is(err, structs.ErrNodeRegistrationDenied) {
			t.Fatalf("%v does not wrap ErrNodeRegistrationDenied", err)
		}
	}
	if err := reg("00000000-0000-0000-0000-0000000000d1", agentCred); err != nil {
		t.Fatal(err)
	}
}
