package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// clusterNode is one server agent of an in-process cluster.
type clusterNode struct {
	name    string
	dataDir string
	agent   *Agent
	api     *api.Client
}

// startClusterServer starts a server agent on loopback with free ports
// (0), bootstrap_expect = 3 and fast gossip, joining retryJoin.
func startClusterServer(t *testing.T, name, dataDir string, retryJoin []string) *clusterNode {
	t.Helper()
	return startClusterServerWith(t, name, dataDir, retryJoin, nil)
}

// startClusterServerWith is startClusterServer with mutate applied to the
// agent config last.
func startClusterServerWith(t *testing.T, name, dataDir string, retryJoin []string, mutate func(*config.Config)) *clusterNode {
	t.Helper()
	cfg := config.Default()
	cfg.Name = name
	cfg.DataDir = dataDir
	cfg.BindAddr = "127.0.0.1"
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	cfg.Server.Enabled = true
	cfg.Server.BootstrapExpect = 3
	cfg.Server.NumSchedulers = 2
	cfg.Server.ServerJoin = config.ServerJoin{RetryJoin: retryJoin, RetryInterval: 200 * time.Millisecond}
	cfg.FastGossip = true
	if mutate != nil {
		mutate(cfg)
	}
	var out io.Writer = io.Discard
	if os.Getenv("DROVER_CLUSTER_LOG") != "" {
		out = os.Stderr
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})).With("agent", name))
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	n := &clusterNode{name: name, dataDir: dataDir, agent: a}
	t.Cleanup(func() { n.stop() })
	n.api, err = api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// stop shuts the agent down as a crash would look to its peers: no
// graceful leave, its data dir kept.
func (n *clusterNode) stop() {
	if n.agent == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n.agent.Shutdown(ctx)
	n.agent = nil
}

// waitFor is testutil.WaitFor with this file's argument order.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	testutil.WaitFor(t, timeout, what, cond)
}

// waitForLeader waits until every live node names the same leader and has
// n voters; it returns the leader's node.
func waitForLeader(t *testing.T, nodes []*clusterNode, voters int) *clusterNode {
	t.Helper()
	var leader *clusterNode
	waitFor(t, "one leader agreed by all", 60*time.Second, func() (bool, string) {
		leader = nil
		addr := ""
		for _, n := range nodes {
			if n.agent == nil {
				continue
			}
			l := n.agent.Server().Leader()
			if l == "" || (addr != "" && l != addr) {
				return false, n.name + " sees leader " + l + " vs " + addr
			}
			addr = l
			if n.agent.Server().IsLeader() {
				leader = n
			}
			peers, err := n.api.Status().Peers()
			if err != nil || len(peers) != voters {
				return false, n.name + " peers: " + stringsOf(peers, err)
			}
		}
		return leader != nil, "no node claims leadership yet"
	})
	return leader
}

func stringsOf(s []string, err error) string {
	if err != nil {
		return err.Error()
	}
	out := ""
	for _, v := range s {
		out += v + " "
	}
	return out
}

func follower(nodes []*clusterNode, leader *clusterNode) *clusterNode {
	for _, n := range nodes {
		if n != leader && n.agent != nil {
			return n
		}
	}
	return nil
}

// mockServiceJob is a service job of count tasks on the mock driver that
// run until stopped.
func mockServiceJob(id string, count int) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("g", count)
	task := api.NewTask("t", "mock")
	task.Config = map[string]any{"run_for": "1h"}
	task.Resources = &api.Resources{CPU: ptr(20), MemoryMB: ptr(16)}
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

func ptr[T any](v T) *T { return &v }

// waitRunning waits until job has count running allocs, read from c.
func waitRunning(t *testing.T, c *api.Client, jobID string, count int) {
	t.Helper()
	waitFor(t, jobID+" running", 60*time.Second, func() (bool, string) {
		allocs, _, err := c.Jobs().Allocations(jobID, false, nil)
		if err != nil {
			return false, err.Error()
		}
		running := 0
		for _, a := range allocs {
			if a.ClientStatus == api.AllocClientStatusRunning {
				running++
			}
		}
		return running == count, "running allocs: " + itoa(running)
	})
}

// runningAllocIDs lists a job's running alloc IDs, sorted, as one string.
func runningAllocIDs(t *testing.T, c *api.Client, jobID string) string {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(jobID, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range allocs {
		if a.ClientStatus == api.AllocClientStatusRunning {
			ids = append(ids, a.ID)
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

func itoa(n int) string { return uintString(uint64(n)) }

// TestCluster_ThreeServers forms a 3-server cluster over loopback TCP from
// retry_join, runs a job registered on a follower, reads stale from a
// follower, kills the leader (a new one is elected and scheduling
// resumes), and restarts the killed server on new ports: it keeps its
// identity and catches up.
func TestCluster_ThreeServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	s1 := startClusterServer(t, "s1", t.TempDir(), nil)
	join := []string{s1.agent.Server().SerfAddr()}
	s2 := startClusterServer(t, "s2", t.TempDir(), join)
	s3 := startClusterServer(t, "s3", t.TempDir(), join)
	nodes := []*clusterNode{s1, s2, s3}
	leader := waitForLeader(t, nodes, 3)

	members, err := s2.api.Agent().Members()
	if err != nil || len(members.Members) != 3 {
		t.Fatalf("members from s2: %+v, %v", members, err)
	}
	for _, m := range members.Members {
		if m.Status != "alive" || m.Tags["role"] != "nomad" || m.Tags["id"] == "" || m.Tags["raft_vsn"] != "3" {
			t.Fatalf("member %s: status %s tags %v", m.Name, m.Status, m.Tags)
		}
	}
	raftCfg, err := s3.api.Operator().RaftGetConfiguration(nil)
	if err != nil || len(raftCfg.Servers) != 3 {
		t.Fatalf("raft configuration: %+v, %v", raftCfg, err)
	}
	for _, srv := range raftCfg.Servers {
		if !srv.Voter || srv.RaftProtocol != "3" || srv.Node == "" {
			t.Fatalf("raft server %+v", srv)
		}
	}

	// A mock-driver client that knows every server, the leader first: it
	// connects there, and must fail over when the leader dies.
	rpcAddrs := []string{leader.agent.RPCAddr()}
	for _, n := range nodes {
		if n != leader {
			rpcAddrs = append(rpcAddrs, n.agent.RPCAddr())
		}
	}
	clientOnlyAgent(t, rpcAddrs...)

	// A job registered on a follower is forwarded to the leader and runs.
	f := follower(nodes, leader)
	if _, _, err := f.api.Jobs().Register(mockServiceJob("web", 2), nil); err != nil {
		t.Fatalf("register on follower %s: %v", f.name, err)
	}
	waitRunning(t, f.api, "web", 2)

	// Followers' workers schedule too: they dequeue from the leader's
	// broker over RPC and submit plans to its applier.
	followersProcessed := func() uint64 {
		var n uint64
		for _, x := range nodes {
			if x != leader {
				n += x.agent.Server().RemoteEvalsProcessed()
			}
		}
		return n
	}
	for i := 0; followersProcessed() == 0 && i < 20; i++ {
		id := "batch-" + itoa(i)
		if _, _, err := f.api.Jobs().Register(mockServiceJob(id, 1), nil); err != nil {
			t.Fatal(err)
		}
		waitRunning(t, f.api, id, 1)
		if _, _, err := f.api.Jobs().Deregister(id, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	if followersProcessed() == 0 {
		t.Fatal("no eval was scheduled by a follower's worker")
	}

	// A stale read on a follower answers from its own state.
	waitFor(t, "stale read on a follower", 10*time.Second, func() (bool, string) {
		jobs, meta, err := f.api.Jobs().List(&api.QueryOptions{AllowStale: true})
		if err != nil {
			return false, err.Error()
		}
		return len(jobs) == 1 && meta.KnownLeader, "jobs: " + itoa(len(jobs))
	})

	webAllocs := runningAllocIDs(t, f.api, "web")

	// Kill the leader: the survivors elect a new one, and scheduling
	// resumes (a job registered now runs).
	oldLeaderID := leader.agent.Server().NodeID()
	t.Logf("killing the leader %s; web runs, registered on %s", leader.name, f.name)
	leader.stop()
	survivors := []*clusterNode{}
	for _, n := range nodes {
		if n != leader {
			survivors = append(survivors, n)
		}
	}
	newLeader := waitForLeader(t, survivors, 3)
	t.Logf("new leader %s", newLeader.name)
	if _, _, err := survivors[0].api.Jobs().Register(mockServiceJob("after", 1), nil); err != nil {
		t.Fatalf("register after failover: %v", err)
	}
	waitRunning(t, follower(survivors, nil).api, "after", 1)
	// The client failed over to a survivor: its node is still ready and
	// web's tasks kept running in the same allocations.
	if got := runningAllocIDs(t, newLeader.api, "web"); got != webAllocs {
		t.Fatalf("web's running allocs after failover = %q, want %q", got, webAllocs)
	}
	nodesList, _, err := newLeader.api.Nodes().List(nil)
	if err != nil || len(nodesList) != 1 || nodesList[0].Status != "ready" {
		t.Fatalf("client node after failover: %+v, %v", nodesList, err)
	}

	// Restart the killed server on new ports: it keeps its ID, rejoins and
	// catches up.
	restarted := startClusterServer(t, leader.name, leader.dataDir, []string{newLeader.agent.Server().SerfAddr()})
	if id := restarted.agent.Server().NodeID(); id != oldLeaderID {
		t.Fatalf("restarted server's ID = %s, want %s", id, oldLeaderID)
	}
	all := append(survivors, restarted)
	waitForLeader(t, all, 3)
	waitFor(t, "restarted server caught up", 30*time.Second, func() (bool, string) {
		jobs, _, err := restarted.api.Jobs().List(&api.QueryOptions{AllowStale: true})
		if err != nil {
			return false, err.Error()
		}
		return len(jobs) == 2, "jobs: " + itoa(len(jobs))
	})
	raftCfg, err = restarted.api.Operator().RaftGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range raftCfg.Servers {
		if srv.ID == oldLeaderID && srv.Address != restarted.agent.RPCAddr() {
			t.Fatalf("restarted server's raft address = %s, want its new %s", srv.Address, restarted.agent.RPCAddr())
		}
	}
}

// A server bound to every interface (the default bind_addr) advertises a
// real address for raft, not 0.0.0.0.
func TestServer_BindAllInterfaces(t *testing.T) {
	cfg := config.Default()
	cfg.Name = "any"
	cfg.DataDir = testutil.DataDir(t)
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	cfg.Server.Enabled, cfg.Server.BootstrapExpect = true, 1
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	if err := a.Server().WaitUntilReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	c, _ := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
	conf, err := c.Operator().RaftGetConfiguration(nil)
	if err != nil || len(conf.Servers) != 1 || strings.HasPrefix(conf.Servers[0].Address, "0.0.0.0") {
		t.Fatalf("raft configuration: %+v, %v", conf, err)
	}
}

// With ACLs on, followers' workers still schedule: their calls to the
// leader's broker and plan queue carry the server credential.
func TestCluster_ACLsOnFollowersStillSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	acls := func(cfg *config.Config) { cfg.ACL.Enabled = true }
	s1 := startClusterServerWith(t, "s1", t.TempDir(), nil, acls)
	join := []string{s1.agent.Server().SerfAddr()}
	s2 := startClusterServerWith(t, "s2", t.TempDir(), join, acls)
	s3 := startClusterServerWith(t, "s3", t.TempDir(), join, acls)
	nodes := []*clusterNode{s1, s2, s3}
	leader := waitForLeader(t, nodes, 3)
	var mgmt *api.ACLToken
	waitFor(t, "ACL bootstrap", 10*time.Second, func() (bool, string) {
		tok, _, err := leader.api.ACLTokens().Bootstrap(nil)
		mgmt = tok
		return err == nil, fmt.Sprint(err)
	})
	// No nodes: every eval is processed into a blocked eval, by whichever
	// server's worker dequeues it.
	w := &api.WriteOptions{AuthToken: mgmt.SecretID}
	followersProcessed := func() uint64 {
		var n uint64
		for _, x := range nodes {
			if x != leader {
				n += x.agent.Server().RemoteEvalsProcessed()
			}
		}
		return n
	}
	// Until a follower's worker takes one: a follower's workers start
	// dequeuing once they know the leader, and until then the leader's
	// take every eval (40 registrations in a row were all the leader's
	// once under load), so the bound is time, not a count.
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; followersProcessed() == 0 && time.Now().Before(deadline); i++ {
		if _, _, err := leader.api.Jobs().Register(mockServiceJob("acl-"+itoa(i), 1), w); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "eval of job acl-"+itoa(i), 10*time.Second, func() (bool, string) {
			evals, _, err := leader.api.Jobs().Evaluations("acl-"+itoa(i), &api.QueryOptions{AuthToken: mgmt.SecretID})
			if err != nil || len(evals) == 0 {
				return false, fmt.Sprint(err)
			}
			return evals[0].Status != "pending", evals[0].Status
		})
	}
	if followersProcessed() == 0 {
		t.Fatal("no follower worker processed an eval with ACLs on")
	}
}
