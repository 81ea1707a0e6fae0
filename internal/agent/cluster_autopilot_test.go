package agent

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// TestCluster_AutopilotConfigSurvivesLeaderLoss: the autopilot
// configuration is raft-stored, so after the leader that took the write
// dies the new leader answers the same one, and the dead server, back,
// has it too. A stale CAS changes nothing; a bad value is a 400 naming
// its field.
func TestCluster_AutopilotConfigSurvivesLeaderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	nodes, leader := startThreeServers(t)
	op := leader.api.Operator()
	want := &api.AutopilotConfiguration{CleanupDeadServers: false, LastContactThreshold: 300 * time.Millisecond,
		MaxTrailingLogs: 123, MinQuorum: 3, ServerStabilizationTime: 4 * time.Second}
	if _, err := op.AutopilotSetConfiguration(want, nil); err != nil {
		t.Fatalf("set autopilot config: %v", err)
	}
	set, _, err := op.AutopilotGetConfiguration(nil)
	if err != nil || !sameAutopilot(set, want) || set.ModifyIndex == 0 {
		t.Fatalf("read back %+v, %v", set, err)
	}

	stale := *want
	stale.MaxTrailingLogs, stale.ModifyIndex = 999, set.ModifyIndex-1
	if ok, _, err := op.AutopilotCASConfiguration(&stale, nil); err != nil || ok {
		t.Fatalf("a stale CAS must not apply: %v %v", ok, err)
	}
	for _, body := range []string{`{"LastContactThreshold": "-1s"}`, `{"LastContactThreshold": "soon"}`, `{"ServerStabilizationTime": "-2s"}`} {
		field := "LastContactThreshold"
		if strings.Contains(body, "Stabilization") {
			field = "ServerStabilizationTime"
		}
		code, msg := doRaw(t, follower(nodes, leader).agent, "PUT", "/v1/operator/autopilot/configuration", body)
		if code != http.StatusBadRequest || !strings.Contains(msg, field) {
			t.Fatalf("PUT %s = %d %q, want 400 naming %s", body, code, msg, field)
		}
	}
	if got, _, _ := op.AutopilotGetConfiguration(nil); got.ModifyIndex != set.ModifyIndex || !sameAutopilot(got, want) {
		t.Fatalf("refused writes changed the config: %+v", got)
	}

	t.Logf("killing the leader %s", leader.name)
	ports := portsOf(t, leader.agent)
	leader.stop()
	var survivors []*clusterNode
	for _, n := range nodes {
		if n.agent != nil {
			survivors = append(survivors, n)
		}
	}
	newLeader := waitForLeader(t, survivors, 3)
	got, _, err := newLeader.api.Operator().AutopilotGetConfiguration(nil)
	if err != nil || !sameAutopilot(got, want) || got.ModifyIndex != set.ModifyIndex {
		t.Fatalf("new leader %s reports %+v, %v; want %+v", newLeader.name, got, err, set)
	}

	// Back on its own ports: with dead-server cleanup off it is still a
	// voter, and moving a voter's address in place trips a data race
	// inside hashicorp/raft (hashicorp/raft#681), which -race reports.
	restarted := startClusterServerWith(t, leader.name, leader.dataDir, []string{newLeader.agent.Server().SerfAddr()},
		func(c *config.Config) { c.Ports = ports })
	waitFor(t, "restarted server has the config", 30*time.Second, func() (bool, string) {
		got, _, err := restarted.api.Operator().AutopilotGetConfiguration(&api.QueryOptions{AllowStale: true})
		if err != nil {
			return false, err.Error()
		}
		return sameAutopilot(got, want) && got.ModifyIndex == set.ModifyIndex, "has " + itoa(int(got.MaxTrailingLogs))
	})
}

// portsOf are the ports a running agent listens on.
func portsOf(t *testing.T, a *Agent) config.Ports {
	t.Helper()
	port := func(addr string) int {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(p)
		return n
	}
	return config.Ports{HTTP: port(a.HTTPAddr()), RPC: port(a.RPCAddr()), Serf: port(a.Server().SerfAddr())}
}

func sameAutopilot(a, b *api.AutopilotConfiguration) bool {
	return a.CleanupDeadServers == b.CleanupDeadServers && a.LastContactThreshold == b.LastContactThreshold &&
		a.MaxTrailingLogs == b.MaxTrailingLogs && a.MinQuorum == b.MinQuorum && a.ServerStabilizationTime == b.ServerStabilizationTime
}
