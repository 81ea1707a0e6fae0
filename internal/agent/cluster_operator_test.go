package agent

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// startThreeServers starts a 3-server cluster and waits for its leader.
func startThreeServers(t *testing.T) ([]*clusterNode, *clusterNode) {
	t.Helper()
	s1 := startClusterServer(t, "s1", t.TempDir(), nil)
	join := []string{s1.agent.Server().SerfAddr()}
	nodes := []*clusterNode{s1, startClusterServer(t, "s2", t.TempDir(), join), startClusterServer(t, "s3", t.TempDir(), join)}
	return nodes, waitForLeader(t, nodes, 3)
}

// TestCluster_Operator drives the operator endpoints through a follower:
// autopilot configuration and health, leadership transfer, snapshot save
// and restore, force-leave and remove-peer.
func TestCluster_Operator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	nodes, leader := startThreeServers(t)
	f := follower(nodes, leader)
	op := f.api.Operator()

	// Autopilot configuration: read and CAS-written through a follower.
	conf, _, err := op.AutopilotGetConfiguration(nil)
	if err != nil || !conf.CleanupDeadServers || conf.LastContactThreshold != 200*time.Millisecond {
		t.Fatalf("autopilot config = %+v, %v", conf, err)
	}
	// Without dead-server cleanup, so remove-peer below has a peer to remove.
	conf.ServerStabilizationTime, conf.CleanupDeadServers = 2*time.Second, false
	if ok, _, err := op.AutopilotCASConfiguration(conf, nil); err != nil || !ok {
		t.Fatalf("CAS autopilot config: %v %v", ok, err)
	}
	if ok, _, err := op.AutopilotCASConfiguration(conf, nil); err != nil || ok {
		t.Fatalf("a stale CAS must not apply: %v %v", ok, err)
	}
	if got, _, _ := op.AutopilotGetConfiguration(nil); got.ServerStabilizationTime != 2*time.Second {
		t.Fatalf("stabilization time = %s", got.ServerStabilizationTime)
	}

	// Health: every server healthy, one failure tolerated.
	waitFor(t, "autopilot sees 3 healthy servers", 30*time.Second, func() (bool, string) {
		h, _, err := op.AutopilotServerHealth(nil)
		if err != nil {
			return false, err.Error()
		}
		healthy := 0
		for _, s := range h.Servers {
			if s.Healthy {
				healthy++
			}
		}
		return h.Healthy && healthy == 3 && h.FailureTolerance == 1, "healthy " + itoa(healthy)
	})

	// Transfer leadership to a named follower, asked through another one.
	target := f.agent.Server().NodeID()
	if err := follower(nodes, leader).api.Operator().RaftTransferLeadershipByID(target, nil); err != nil {
		t.Fatalf("transfer leadership: %v", err)
	}
	waitFor(t, "leadership moved", 20*time.Second, func() (bool, string) {
		return f.agent.Server().IsLeader(), "leader is " + f.agent.Server().Leader()
	})
	newLeader := waitForLeader(t, nodes, 3)
	other := follower(nodes, newLeader)

	// Snapshot save from a follower, restore through a follower.
	if _, _, err := newLeader.api.Jobs().Register(mockServiceJob("snap", 1), nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "job replicated", 10*time.Second, func() (bool, string) {
		jobs, _, err := other.api.Jobs().List(&api.QueryOptions{AllowStale: true})
		return err == nil && len(jobs) == 1, "not yet"
	})
	rc, err := other.api.Operator().Snapshot(nil)
	if err != nil {
		t.Fatalf("snapshot save on a follower: %v", err)
	}
	snap, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || len(snap) == 0 {
		t.Fatalf("snapshot: %d bytes, %v", len(snap), err)
	}
	if _, _, err := newLeader.api.Jobs().Deregister("snap", true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.api.Operator().SnapshotRestore(bytes.NewReader(snap), nil); err != nil {
		t.Fatalf("restore through a follower: %v", err)
	}
	waitFor(t, "restored job back", 10*time.Second, func() (bool, string) {
		jobs, _, err := newLeader.api.Jobs().List(nil)
		return err == nil && len(jobs) == 1, "jobs missing"
	})

	// Force-leave names an unknown member: 404.
	if err := other.api.Agent().ForceLeave("nobody.global"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("force-leave of an unknown member: %v", err)
	}

	// Stop a follower and remove it from raft by ID: two voters remain.
	victim := follower(nodes, newLeader)
	victimID := victim.agent.Server().NodeID()
	victim.stop()
	var rest []*clusterNode
	for _, n := range nodes {
		if n != victim {
			rest = append(rest, n)
		}
	}
	if err := rest[0].api.Operator().RaftRemovePeerByID(victimID, nil); err != nil {
		t.Fatalf("remove-peer: %v", err)
	}
	waitForLeader(t, rest, 2)
	if err := rest[0].api.Operator().RaftRemovePeerByID("no-such-id", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("remove-peer of an unknown ID: %v", err)
	}
}

// A server that joins a running cluster is added by the leader as a
// non-voter and promoted to voter once stable (autopilot's server
// stabilization time); when it dies, autopilot's dead-server cleanup
// removes it again.
func TestCluster_JoinPromoteAndCleanup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 4-server cluster")
	}
	nodes, leader := startThreeServers(t)
	conf, _, err := leader.api.Operator().AutopilotGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	conf.ServerStabilizationTime = time.Second
	if ok, _, err := leader.api.Operator().AutopilotCASConfiguration(conf, nil); err != nil || !ok {
		t.Fatalf("set stabilization time: %v %v", ok, err)
	}
	// The fourth server joins by hand (server join), not by retry_join.
	s4 := startClusterServer(t, "s4", t.TempDir(), nil)
	if n, err := s4.api.Agent().Join(leader.agent.Server().SerfAddr()); err != nil || n != 1 {
		t.Fatalf("join: %d, %v", n, err)
	}
	s4ID := s4.agent.Server().NodeID()
	sawNonvoter := false
	waitFor(t, "s4 promoted to voter", 60*time.Second, func() (bool, string) {
		cfg, err := leader.api.Operator().RaftGetConfiguration(nil)
		if err != nil {
			return false, err.Error()
		}
		for _, s := range cfg.Servers {
			if s.ID == s4ID {
				sawNonvoter = sawNonvoter || !s.Voter
				return s.Voter, "s4 not yet a voter"
			}
		}
		return false, "s4 not yet a raft peer"
	})
	if !sawNonvoter {
		t.Log("s4 was promoted before a non-voter state was observed")
	}
	all := append(nodes, s4)
	waitForLeader(t, all, 4)

	// s4 dies: autopilot removes it (three voters stay, one may fail).
	s4.stop()
	waitFor(t, "dead s4 removed by autopilot", 60*time.Second, func() (bool, string) {
		cfg, err := leader.api.Operator().RaftGetConfiguration(nil)
		if err != nil {
			return false, err.Error()
		}
		for _, s := range cfg.Servers {
			if s.ID == s4ID {
				return false, "s4 still a peer"
			}
		}
		return len(cfg.Servers) == 3, "servers: " + itoa(len(cfg.Servers))
	})
}
