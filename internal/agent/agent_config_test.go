package agent

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/testutil"
)

// loadConfigText loads an agent config file's text over the dev config.
func loadConfigText(t *testing.T, text string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.hcl")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadDev(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestServerConfig_FromAgentConfig: the server keys of an agent file reach
// the server's configuration as the server reads them.
func TestServerConfig_FromAgentConfig(t *testing.T) {
	cfg := loadConfigText(t, `
addresses { serf = "127.0.0.2" }
advertise { serf = "10.1.2.3:4999" }
server {
  heartbeat_grace           = "25s"
  min_heartbeat_ttl         = "15s"
  max_heartbeats_per_second = 20.0
  eval_gc_threshold         = "2h"
  batch_eval_gc_threshold   = "48h"
  job_gc_threshold          = "6h"
  job_gc_interval           = "7m"
  node_gc_threshold         = "12h"
  raft_multiplier           = 3
  encrypt                   = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="
}
autopilot {
  cleanup_dead_servers      = false
  last_contact_threshold    = "300ms"
  max_trailing_logs         = 123
  min_quorum                = 3
  server_stabilization_time = "4s"
}
`)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a := &Agent{config: cfg, rpcListener: ln}
	sc := a.serverConfig()
	if sc.HeartbeatGrace != 25*time.Second || sc.MinHeartbeatTTL != 15*time.Second || sc.MaxHeartbeatsPerSecond != 20 ||
		sc.EvalGCThreshold != 2*time.Hour || sc.BatchEvalGCThreshold != 48*time.Hour || sc.JobGCThreshold != 6*time.Hour ||
		sc.GCInterval != 7*time.Minute || sc.NodeGCThreshold != 12*time.Hour {
		t.Errorf("server timings = %+v", sc)
	}
	if rt := sc.RaftTimings; rt == nil || rt.Heartbeat != 3*time.Second || rt.Election != 3*time.Second || rt.LeaderLease != 1500*time.Millisecond {
		t.Errorf("raft_multiplier 3: raft timings %+v", rt)
	}
	if server.ScaledRaftTimings(1) != nil {
		t.Error("raft_multiplier 1 must keep raft's defaults")
	}
	if s := sc.Serf; len(s.SecretKey) != 32 || s.BindAddr != "127.0.0.2" || s.AdvertiseAddr != "10.1.2.3" || s.AdvertisePort != 4999 {
		t.Errorf("serf = %+v", s)
	}
	if ap := sc.Autopilot; ap == nil || ap.CleanupDeadServers || ap.LastContactThreshold != 300*time.Millisecond ||
		ap.MaxTrailingLogs != 123 || ap.MinQuorum != 3 || ap.ServerStabilizationTime != 4*time.Second {
		t.Errorf("autopilot = %+v", ap)
	}
}

// TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap: the agent's
// default_scheduler_config and autopilot blocks are what a new cluster
// answers through the official client.
func TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap(t *testing.T) {
	file := loadConfigText(t, `
server {
  default_scheduler_config {
    scheduler_algorithm             = "spread"
    memory_oversubscription_enabled = true
    reject_job_registration         = false
    pause_eval_broker               = false
    preemption_config {
      batch_scheduler_enabled    = true
      system_scheduler_enabled   = false
      sysbatch_scheduler_enabled = true
      service_scheduler_enabled  = true
    }
  }
}
autopilot {
  max_trailing_logs = 77
}
`)
	_, c := testAgent(t, func(cfg *config.Config) {
		cfg.Server.DefaultSchedulerConfig = file.Server.DefaultSchedulerConfig
		cfg.Autopilot = file.Autopilot
	})
	var sc *api.SchedulerConfiguration
	testutil.WaitFor(t, 10*time.Second, "the scheduler configuration is stored", func() (bool, string) {
		r, _, err := c.Operator().SchedulerGetConfiguration(nil)
		if err != nil {
			return false, err.Error()
		}
		sc = r.SchedulerConfig
		return sc != nil && sc.CreateIndex > 0, "not stored yet"
	})
	p := sc.PreemptionConfig
	if sc.SchedulerAlgorithm != "spread" || !sc.MemoryOversubscriptionEnabled || !p.BatchSchedulerEnabled ||
		p.SystemSchedulerEnabled || !p.SysBatchSchedulerEnabled || !p.ServiceSchedulerEnabled {
		t.Errorf("scheduler config = %+v", sc)
	}
	ap, _, err := c.Operator().AutopilotGetConfiguration(nil)
	if err != nil || ap.MaxTrailingLogs != 77 || !ap.CleanupDeadServers || ap.LastContactThreshold != 200*time.Millisecond {
		t.Errorf("autopilot = %+v, %v", ap, err)
	}
}

// TestGossipEncryption_DifferentKeyCannotJoin: servers sharing
// server.encrypt join each other; one with another key, or none, cannot.
func TestGossipEncryption_DifferentKeyCannotJoin(t *testing.T) {
	withKey := func(key string) func(*config.Config) {
		return func(c *config.Config) { c.Server.Encrypt = key }
	}
	const k1, k2 = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA=", "AAAAAAAAAAAAAAAAAAAAAA=="
	s1 := startClusterServerWith(t, "s1", t.TempDir(), nil, withKey(k1))
	addr := s1.agent.Server().SerfAddr()
	for _, c := range []struct{ name, key string }{{"other-key", k2}, {"no-key", ""}} {
		n := startClusterServerWith(t, c.name, t.TempDir(), nil, withKey(c.key))
		if joined, err := n.api.Agent().Join(addr); err == nil || joined != 0 {
			t.Errorf("%s joined %d (err %v), want a refused join", c.name, joined, err)
		}
	}
	same := startClusterServerWith(t, "same-key", t.TempDir(), nil, withKey(k1))
	if joined, err := same.api.Agent().Join(addr); err != nil || joined != 1 {
		t.Fatalf("same key: joined %d, %v", joined, err)
	}
	waitFor(t, "s1 sees the server with its key, and only it", 10*time.Second, func() (bool, string) {
		m, err := s1.api.Agent().Members()
		if err != nil {
			return false, err.Error()
		}
		var names []string
		for _, x := range m.Members {
			names = append(names, x.Name)
		}
		got := strings.Join(names, ",")
		return len(names) == 2 && strings.Contains(got, "same-key") && !strings.Contains(got, "other-key") && !strings.Contains(got, "no-key"), got
	})
}

// TestClientConfig_FromAgentConfig: the client keys reach the node the
// client registers (host networks, dynamic port range, resources and
// reservations, read back through the official client), and
// max_kill_timeout caps a task's kill_timeout.
func TestClientConfig_FromAgentConfig(t *testing.T) {
	file := loadConfigText(t, `
client {
  cpu_total_compute = 7777
  memory_total_mb   = 3333
  min_dynamic_port  = 25000
  max_dynamic_port  = 25100
  max_kill_timeout  = "1s"
  gc_interval              = "30s"
  gc_max_allocs            = 9
  gc_disk_usage_threshold  = 91
  gc_inode_usage_threshold = 92
  gc_parallel_destroys     = 3
  reserved {
    cpu            = 100
    memory         = 64
    disk           = 10
    reserved_ports = "22"
  }
  host_network "public" {
    cidr           = "203.0.113.0/24"
    reserved_ports = "22,80"
  }
  host_network "lo" {
    interface = "lo"
  }
}
`)
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client = file.Client
		cfg.Client.Enabled = true
		cfg.Client.NodeRegistrationToken = testNodeCredential
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
	})
	var node *api.Node
	testutil.WaitFor(t, 10*time.Second, "the node registered", func() (bool, string) {
		stubs, _, err := c.Nodes().List(nil)
		if err != nil || len(stubs) == 0 {
			return false, "no node"
		}
		node, _, err = c.Nodes().Info(stubs[0].ID, nil)
		return err == nil, "info"
	})
	if hn := node.HostNetworks["public"]; hn == nil || hn.CIDR != "203.0.113.0/24" || hn.ReservedPorts != "22,80" {
		t.Errorf("host network public = %+v", hn)
	}
	if hn := node.HostNetworks["lo"]; hn == nil || hn.Interface != "lo" {
		t.Errorf("host network lo = %+v", hn)
	}
	r := node.NodeResources
	if r.MinDynamicPort != 25000 || r.MaxDynamicPort != 25100 || r.Cpu.CpuShares != 7777 || r.Memory.MemoryMB != 3333 {
		t.Errorf("node resources = %+v", r)
	}
	if rr := node.ReservedResources; rr.Cpu.CpuShares != 100 || rr.Memory.MemoryMB != 64 || rr.Disk.DiskMB != 10 || rr.Networks.ReservedHostPorts != "22" {
		t.Errorf("reserved = %+v", rr)
	}
	if g := a.clientConfig("", nil).GC; g.Interval != 30*time.Second || g.MaxAllocs != 9 || g.DiskUsageThreshold != 91 ||
		g.InodeUsageThreshold != 92 || g.ParallelDestroys != 3 {
		t.Errorf("client gc = %+v", g)
	}

	// A task ignoring SIGTERM with kill_timeout 1h is killed after 1s.
	job := shellJob("stubborn", "trap '' TERM; while true; do sleep 0.1; done")
	job.TaskGroups[0].Tasks[0].KillTimeout = pointer(time.Hour)
	alloc := runJob(t, c, job)
	if _, _, err := c.Jobs().Deregister("stubborn", false, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the task killed within max_kill_timeout", func() (bool, string) {
		got, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		ts := got.TaskStates["t"]
		if ts == nil || ts.State != "dead" {
			return false, "task not dead"
		}
		for _, e := range ts.Events {
			if e.Type == "Killing" && e.KillTimeout != time.Second {
				t.Fatalf("killing event waits %s, want max_kill_timeout 1s", e.KillTimeout)
			}
		}
		return true, ""
	})
}

// TestAgent_UIEnabledAndResponseHeaders: ui { enabled = false } stops serving the
// web UI; the API is unaffected. The cosmetic ui keys are logged as
// ignored when the agent starts. http_api_response_headers go on every
// response.
func TestAgent_UIEnabledAndResponseHeaders(t *testing.T) {
	on, _ := testAgent(t, nil)
	if code, _ := doRaw(t, on, "GET", "/ui/", ""); code != 200 {
		t.Fatalf("ui on: %d", code)
	}
	cfg := loadConfigText(t, "ui {\n  enabled = false\n  label { text = \"prod\" }\n}\nhttp_api_response_headers {\n  \"Access-Control-Allow-Origin\" = \"*\"\n}\n")
	var logs syncBuffer
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	cfg.Client.Enabled = false
	a, err := New(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	for _, path := range []string{"/ui/", "/ui/jobs", "/"} {
		if code, body := doRaw(t, a, "GET", path, ""); code != 404 || !strings.Contains(body, "ui { enabled = false }") {
			t.Errorf("GET %s with the UI off: %d %q", path, code, body)
		}
	}
	if code, _ := doRaw(t, a, "GET", "/v1/agent/self", ""); code != 200 {
		t.Errorf("the API must stay: %d", code)
	}
	// http_api_response_headers (HCL1's block form) go on every response.
	resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/status/leader")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin = %q", got)
	}
	if !strings.Contains(logs.String(), "ui.label is ignored") {
		t.Errorf("the warned key was not logged:\n%s", logs.String())
	}
}
