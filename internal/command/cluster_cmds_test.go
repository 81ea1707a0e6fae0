package command

import (
	"strings"
	"testing"
)

// The cluster commands against a dev agent (one server, gossip on).
func TestClusterCommands(t *testing.T) {
	addr, _ := testAgent(t, nil)
	r := run(t, "server", "members", "-address", addr)
	if r.code != 0 || !strings.Contains(r.stdout, "alive") || !strings.Contains(r.stdout, "true") {
		t.Fatalf("server members: %+v", r)
	}
	r = run(t, "operator", "raft", "list-peers", "-address", addr)
	if r.code != 0 || !strings.Contains(r.stdout, "leader") || !strings.Contains(r.stdout, "3") {
		t.Fatalf("list-peers: %+v", r)
	}
	r = run(t, "operator", "autopilot", "get-config", "-address", addr)
	if r.code != 0 || !strings.Contains(r.stdout, "CleanupDeadServers") || !strings.Contains(r.stdout, "10s") {
		t.Fatalf("autopilot get-config: %+v", r)
	}
	r = run(t, "operator", "autopilot", "set-config", "-address", addr, "-server-stabilization-time", "3s")
	if r.code != 0 || !strings.Contains(r.stdout, "updated") {
		t.Fatalf("autopilot set-config: %+v", r)
	}
	if r = run(t, "operator", "autopilot", "get-config", "-address", addr); !strings.Contains(r.stdout, "3s") {
		t.Fatalf("set-config did not apply: %+v", r)
	}
	r = run(t, "server", "join", "-address", addr, "127.0.0.1:1")
	if r.code == 0 || !strings.Contains(r.stderr, "join") {
		t.Fatalf("join of a dead address: %+v", r)
	}
	r = run(t, "server", "force-leave", "-address", addr, "nobody")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("force-leave of an unknown member: %+v", r)
	}
	r = run(t, "operator", "raft", "remove-peer", "-address", addr)
	if r.code == 0 || !strings.Contains(r.stderr, "-peer-id") {
		t.Fatalf("remove-peer without a peer: %+v", r)
	}
	r = run(t, "operator", "raft", "transfer-leadership", "-address", addr)
	if r.code == 0 {
		t.Fatalf("transfer-leadership with no other voter: %+v", r)
	}
}
