package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestContract_OperatorCommands: `operator raft list-peers`, `operator
// autopilot get-config/set-config/health`, `operator scheduler
// get-config/set-config`, `operator metrics`, `operator root keyring
// list/rotate`.
func TestContract_OperatorCommands(t *testing.T) {
	_, c := testAgent(t, nil)
	raft, err := c.Operator().RaftGetConfiguration(nil)
	if err != nil || len(raft.Servers) != 1 {
		t.Fatalf("raft list-peers: %+v %v", raft, err)
	}
	requireFilled(t, "operator raft list-peers", raft, "Servers[0].ID", "Servers[0].Node", "Servers[0].Address",
		"Servers[0].Leader", "Servers[0].Voter", "Servers[0].RaftProtocol")

	ap, _, err := c.Operator().AutopilotGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator autopilot get-config", ap, "CleanupDeadServers", "LastContactThreshold", "MaxTrailingLogs",
		"ServerStabilizationTime")
	ap.MaxTrailingLogs = 300
	if ok, _, err := c.Operator().AutopilotCASConfiguration(ap, nil); err != nil || !ok {
		t.Fatalf("operator autopilot set-config: %v %v", ok, err)
	}
	health, _, err := c.Operator().AutopilotServerHealth(nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator autopilot health", health, "Healthy", "Leader", "Voters", "Servers[0].ID", "Servers[0].Name",
		"Servers[0].Address", "Servers[0].SerfStatus", "Servers[0].Version", "Servers[0].Leader", "Servers[0].LastTerm",
		"Servers[0].LastIndex", "Servers[0].Healthy", "Servers[0].Voter", "Servers[0].StableSince")

	sched, _, err := c.Operator().SchedulerGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator scheduler get-config", sched, "SchedulerConfig.SchedulerAlgorithm",
		"SchedulerConfig.PreemptionConfig.SystemSchedulerEnabled", "SchedulerConfig.ModifyIndex")
	conf := sched.SchedulerConfig
	conf.MemoryOversubscriptionEnabled = true
	set, _, err := c.Operator().SchedulerCASConfiguration(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator scheduler set-config", set, "Updated")

	metrics, _, err := c.Operator().MetricsSummary(nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator metrics", metrics, "Timestamp", "Gauges[0].Name", "Counters", "Samples")

	keys, _, err := c.Keyring().List(nil)
	if err != nil || len(keys) == 0 {
		t.Fatalf("root keyring list %d: %v", len(keys), err)
	}
	requireFilled(t, "operator root keyring list", keys[0], "KeyID", "State", "CreateTime", "CreateIndex")
	rotated, _, err := c.Keyring().Rotate(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "operator root keyring rotate", rotated, "KeyID", "State", "CreateTime")
}

// TestContract_ServerAndAgentCommands: `server members` (-detailed),
// `agent-info`, and the leader and peers they read.
func TestContract_ServerAndAgentCommands(t *testing.T) {
	_, c := clientTestAgent(t)
	members, err := c.Agent().Members()
	if err != nil || len(members.Members) != 1 {
		t.Fatalf("server members: %+v %v", members, err)
	}
	requireFilled(t, "server members", members, "ServerName", "ServerRegion", "ServerDC", "Members[0].Name", "Members[0].Addr",
		"Members[0].Port", "Members[0].Status", "Members[0].Tags[build]", "Members[0].Tags[region]", "Members[0].Tags[dc]",
		"Members[0].Tags[raft_vsn]", "Members[0].Tags[role]", "Members[0].ProtocolCur")
	leader, err := c.Status().Leader()
	if err != nil || leader == "" {
		t.Fatalf("status leader %q: %v", leader, err)
	}
	peers, err := c.Status().Peers()
	if err != nil || len(peers) != 1 {
		t.Fatalf("status peers %v: %v", peers, err)
	}

	self, err := c.Agent().Self()
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "agent-info", self, "Config", "Member.Name", "Stats[nomad][leader]", "Stats[nomad][server]",
		"Stats[nomad][known_regions]", "Stats[raft][state]", "Stats[raft][last_log_index]", "Stats[serf][members]",
		"Stats[runtime][goroutines]", "Stats[runtime][version]", "Stats[runtime][arch]", "Stats[client][node_id]",
		"Stats[client][known_servers]", "Stats[client][num_allocations]")
	health, err := c.Agent().Health()
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "agent health", health, "Server.Ok", "Server.Message", "Client.Ok", "Client.Message")
}

// TestContract_NodeConfigServers: `node config -servers` lists the local
// client's servers and `-update-servers` replaces them; an agent without
// a client answers 400.
func TestContract_NodeConfigServers(t *testing.T) {
	a, c := clientTestAgent(t)
	servers, err := c.Agent().Servers()
	if err != nil || len(servers) != 1 || servers[0] != a.RPCAddr() {
		t.Fatalf("node config -servers: %v %v (rpc %s)", servers, err, a.RPCAddr())
	}
	if err := c.Agent().SetServers([]string{a.RPCAddr(), "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	if servers, _ = c.Agent().Servers(); len(servers) != 2 || servers[1] != "127.0.0.1:4647" {
		t.Fatalf("after -update-servers: %v", servers)
	}
	_, noClient := testAgent(t, nil)
	if _, err := noClient.Agent().Servers(); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("servers of an agent without a client: %v", err)
	}
}

// TestContract_GossipKeyring: without gossip encryption, `operator gossip
// keyring` gets a 400 saying it is not enabled, for every operation.
func TestContract_GossipKeyring(t *testing.T) {
	_, c := testAgent(t, nil)
	_, err := c.Agent().ListKeys()
	for _, e := range []error{err, second(c.Agent().InstallKey("k")), second(c.Agent().UseKey("k")), second(c.Agent().RemoveKey("k"))} {
		if e == nil || !strings.Contains(e.Error(), "400") || !strings.Contains(e.Error(), "gossip encryption") {
			t.Fatalf("gossip keyring: %v", e)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestContract_RootKeyringRemove: `operator root keyring remove` refuses
// the active key and, without -force, a key that still seals variables;
// an unsealing-free inactive key (or any with -force) is removed from the
// keyring. Unknown keys are 404.
func TestContract_RootKeyringRemove(t *testing.T) {
	_, c := testAgent(t, nil)
	keys, _, err := c.Keyring().List(nil)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keyring %d: %v", len(keys), err)
	}
	first := keys[0].KeyID
	if _, _, err := c.Variables().Create(&api.Variable{Path: "sealed", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: first}, nil); err == nil || !strings.Contains(err.Error(), "active") {
		t.Fatalf("removing the active key: %v", err)
	}
	second, _, err := c.Keyring().Rotate(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: first}, nil); err == nil || !strings.Contains(err.Error(), "seals 1 variables") {
		t.Fatalf("removing a key that seals a variable: %v", err)
	}
	third, _, err := c.Keyring().Rotate(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	wm, err := c.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: second.KeyID}, nil)
	if err != nil || wm.LastIndex == 0 {
		t.Fatalf("removing an unused inactive key: %v", err)
	}
	if _, err := c.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: first, Force: true}, nil); err != nil {
		t.Fatalf("forced removal: %v", err)
	}
	keys, _, _ = c.Keyring().List(nil)
	if len(keys) != 1 || keys[0].KeyID != third.KeyID {
		t.Fatalf("keyring after removals: %+v", keys)
	}
	if _, err := c.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: "00000000-0000-0000-0000-000000000000"}, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown key: %v", err)
	}
}
