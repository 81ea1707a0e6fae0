package agent

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// TestServerForward_ClientOnlyAgentForwardsTheClusterAPI points the
// official client at a client-only agent: cluster endpoints (reads,
// writes, a blocking query, the event stream) are answered by the server
// through the client's RPC connection, with the caller's token checked
// there (`node status -self` and `node eligibility -self` against a
// client's address).
func TestServerForward_ClientOnlyAgentForwardsTheClusterAPI(t *testing.T) {
	srv, sc := testAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	root, _, err := sc.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	second := clientOnlyAgentWith(t, func(cfg *config.Config) { cfg.ACL.Enabled = true }, srv.RPCAddr())
	c, err := api.NewClient(&api.Config{Address: "http://" + second.HTTPAddr(), SecretID: root.SecretID})
	if err != nil {
		t.Fatal(err)
	}
	nodeID := second.Client().NodeID()
	var node *api.Node
	testutil.WaitFor(t, 10*time.Second, "the client's node, read through the client", func() (bool, string) {
		node, _, err = c.Nodes().Info(nodeID, nil)
		if err != nil {
			return false, err.Error()
		}
		return node.Status == "ready", node.Status
	})
	if node.Name != "second" {
		t.Errorf("node name through the client: %q", node.Name)
	}

	// node eligibility -self: a write, through the client, lands on the server.
	if _, err := c.Nodes().ToggleEligibility(nodeID, false, nil); err != nil {
		t.Fatalf("eligibility through the client: %v", err)
	}
	onServer, _, err := sc.Nodes().Info(nodeID, &api.QueryOptions{AuthToken: root.SecretID})
	if err != nil || onServer.SchedulingEligibility != api.NodeSchedulingIneligible {
		t.Fatalf("server's view after the forwarded write: %+v %v", onServer, err)
	}

	// The caller's token goes with the request: none, or a bad one, is denied by the server.
	anon, _ := api.NewClient(&api.Config{Address: "http://" + second.HTTPAddr()})
	if _, _, err := anon.Nodes().List(nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("node list without a token through the client: %v, want 403", err)
	}
	anon.SetSecretID("00000000-0000-0000-0000-00000000dead")
	if _, err := anon.Nodes().ToggleEligibility(nodeID, true, nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("eligibility with a bad token through the client: %v, want 403", err)
	}

	// A blocking query wakes up on a change made elsewhere.
	_, meta, err := c.Nodes().Info(nodeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() {
		n, _, err := c.Nodes().Info(nodeID, &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 30 * time.Second})
		if err == nil && n.SchedulingEligibility != api.NodeSchedulingEligible {
			err = errString("woke with eligibility " + n.SchedulingEligibility)
		}
		woke <- err
	}()
	if _, err := sc.Nodes().ToggleEligibility(nodeID, true, &api.WriteOptions{AuthToken: root.SecretID}); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil {
		t.Errorf("blocking query through the client: %v", err)
	}

	// The event stream passes through frame by frame.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicNode: {"*"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Nodes().ToggleEligibility(nodeID, false, &api.WriteOptions{AuthToken: root.SecretID}); err != nil {
		t.Fatal(err)
	}
	for got := false; !got; {
		select {
		case ev := <-events:
			if ev.Err != nil {
				t.Fatalf("event stream through the client: %v", ev.Err)
			}
			for _, e := range ev.Events {
				got = got || e.Topic == api.TopicNode
			}
		case <-ctx.Done():
			t.Fatal("no node event through the client's event stream")
		}
	}

	// Unknown paths are the server's 404, not the client's 501.
	if code, body := getWithToken(t, second.HTTPAddr(), "/v1/no-such-thing", nil, root.SecretID); code != http.StatusNotFound {
		t.Errorf("unknown path through the client: %d %q", code, body)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestServerForward_WebsocketThroughAClientOnlyAgent: a task action (a
// websocket on a cluster path) asked of a client-only agent goes to the
// server over the forwarded stream, upgrade included, and back to the
// node that runs the alloc.
func TestServerForward_WebsocketThroughAClientOnlyAgent(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	job := actionJob("wsacts")
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)
	viaClient, err := api.NewClient(&api.Config{Address: "http://" + second.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, code, err := runAction(t, viaClient, alloc, "wsacts", "hello")
	if err != nil || code != 4 || stdout != "hello from t\n" {
		t.Fatalf("action through the client-only agent: code %d err %v stdout %q", code, err, stdout)
	}
}
