package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fullWant is what testdata/full.hcl and full.json both decode to, on top of
// Default().
func fullWant() *Config {
	c := Default()
	c.Region, c.Datacenter, c.Name = "eu", "dc2", "node-1"
	c.DataDir, c.BindAddr, c.LogLevel = "/var/lib/drover", "10.0.0.5", "debug"
	c.Ports = Ports{HTTP: 5646, RPC: 5647, Serf: 5648}
	c.Addresses = Addresses{HTTP: "0.0.0.0", RPC: "10.0.0.6"}
	c.Server = ServerConfig{
		Enabled: true, BootstrapExpect: 3, NumSchedulers: 2,
		EnabledSchedulers:      []string{"service", "batch"},
		EventBufferSize:        64,
		HeartbeatGrace:         30 * time.Second,
		MinHeartbeatTTL:        20 * time.Second,
		MaxHeartbeatsPerSecond: 25.5,
		EvalGCThreshold:        2 * time.Hour,
		JobGCThreshold:         5 * time.Hour,
		BatchEvalGCThreshold:   24 * time.Hour,
		JobGCInterval:          5 * time.Minute,
		NodeGCThreshold:        48 * time.Hour,
		RaftMultiplier:         1,
		RaftProtocol:           3,
		EnableEventBroker:      true,
		ServerJoin:             ServerJoin{RetryJoin: []string{"10.0.0.1", "10.0.0.2"}, RetryInterval: 15 * time.Second, RetryMax: 3},
		RaftLogStore:           "boltdb",
	}
	c.Client = ClientConfig{
		MinDynamicPort: 20000, MaxDynamicPort: 32000, MaxKillTimeout: 30 * time.Second, GC: Default().Client.GC,
		NoHostUUID: true, CPUDisableDmidecode: true,
		Enabled: true, Servers: []string{"10.0.0.1:4647"},
		NodeClass: "compute", NodePool: "gpu",
		Meta:     map[string]string{"rack": "r1", "zone": "a"},
		Options:  map[string]string{"driver.raw_exec.enable": "1"},
		StateDir: "/var/lib/drover/client", AllocDir: "/var/lib/drover/alloc",
		NetworkInterface: "eth0", CPUTotalCompute: 8000, MemoryTotalMB: 16384,
		Reserved: Reserved{CPU: 500, MemoryMB: 512, DiskMB: 1024, ReservedPorts: "22,80,8000-8100"},
	}
	c.Plugins = []PluginConfig{
		{Name: "docker", Config: map[string]any{
			"endpoint":         "unix:///var/run/docker.sock",
			"allow_privileged": false,
			"pull_timeout":     5,
			"ratio":            0.5,
			"extra_labels":     []any{"job_name", "task_name"},
			"volumes":          map[string]any{"enabled": true},
			"gc": map[string]any{
				"image": true, "image_delay": "3m",
				"dangling_containers": map[string]any{"enabled": false},
			},
			"auth":       map[string]any{"registry.example.com": map[string]any{"user": "me"}},
			"allow_caps": []any{"audit_write"},
			"mounts":     []any{map[string]any{"target": "/a"}, map[string]any{"target": "/b"}},
		}},
		{Name: "raw_exec", Config: map[string]any{"enabled": true}},
	}
	return c
}

func TestDefaults(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		name     string
		got, exp any
	}{
		{"region", c.Region, "global"},
		{"datacenter", c.Datacenter, "dc1"},
		{"bind_addr", c.BindAddr, "0.0.0.0"},
		{"log_level", c.LogLevel, "INFO"},
		{"ports", c.Ports, Ports{4646, 4647, 4648}},
		{"num_schedulers", c.Server.NumSchedulers, runtime.NumCPU()},
		{"event_buffer_size", c.Server.EventBufferSize, 100},
		{"heartbeat_grace", c.Server.HeartbeatGrace, 10 * time.Second},
		{"min_heartbeat_ttl", c.Server.MinHeartbeatTTL, 10 * time.Second},
		{"max_heartbeats_per_second", c.Server.MaxHeartbeatsPerSecond, 50.0},
		{"eval_gc_threshold", c.Server.EvalGCThreshold, time.Hour},
		{"job_gc_threshold", c.Server.JobGCThreshold, 4 * time.Hour},
		{"batch_eval_gc_threshold", c.Server.BatchEvalGCThreshold, 24 * time.Hour},
		{"job_gc_interval", c.Server.JobGCInterval, 5 * time.Minute},
		{"node_gc_threshold", c.Server.NodeGCThreshold, 24 * time.Hour},
		{"raft_multiplier", c.Server.RaftMultiplier, 1},
		{"dynamic ports", [2]int{c.Client.MinDynamicPort, c.Client.MaxDynamicPort}, [2]int{20000, 32000}},
		{"max_kill_timeout", c.Client.MaxKillTimeout, 30 * time.Second},
		{"client gc", c.Client.GC, ClientGC{Interval: time.Minute, MaxAllocs: 50, DiskUsageThreshold: 80, InodeUsageThreshold: 70, ParallelDestroys: 2}},
		{"collection_interval", c.Telemetry.CollectionInterval, time.Second},
		{"log_rotate_duration", c.Logging.RotateDuration, 24 * time.Hour},
		{"http_addr", c.HTTPAddr(), "0.0.0.0:4646"},
		{"rpc_addr", c.RPCAddr(), "0.0.0.0:4647"},
		{"slog", c.SlogLevel(), slog.LevelInfo},
		{"data_dir", c.DataDir, ""},
	} {
		if !reflect.DeepEqual(tc.got, tc.exp) {
			t.Errorf("%s = %#v, want %#v", tc.name, tc.got, tc.exp)
		}
	}
}

func TestDevConfig(t *testing.T) {
	c := DevConfig()
	if !c.DevMode || !c.Server.Enabled || !c.Client.Enabled || c.Server.BootstrapExpect != 1 {
		t.Fatalf("dev config not a single-node server+client: %+v", c)
	}
	if c.HTTPAddr() != "127.0.0.1:4646" || c.Name != "dev" {
		t.Fatalf("dev addr/name = %s/%s", c.HTTPAddr(), c.Name)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("dev config invalid: %v", err)
	}
}

func TestLoadFullFile(t *testing.T) {
	for _, file := range []string{"testdata/full.hcl", "testdata/full.json"} {
		t.Run(filepath.Ext(file), func(t *testing.T) {
			got, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			want := fullWant()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded:\n%#v\nwant:\n%#v", got, want)
			}
			if got.HTTPAddr() != "0.0.0.0:5646" || got.RPCAddr() != "10.0.0.6:5647" {
				t.Fatalf("addrs %s %s", got.HTTPAddr(), got.RPCAddr())
			}
			if got.SlogLevel() != slog.LevelDebug {
				t.Fatalf("slog level %v", got.SlogLevel())
			}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLoadFileOnlyFileValues(t *testing.T) {
	c, err := LoadFile(write(t, "a.hcl", `region = "x"`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Region != "x" || c.Datacenter != "" || c.Ports.HTTP != 0 {
		t.Fatalf("LoadFile should hold only file values: %+v", c)
	}
}

// write puts content in a temp file and returns its path.
func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{
		{"unknown top key", "u.hcl", "region = \"a\"\nbogus = 1\n", []string{"u.hcl:2:1", "bogus"}},
		{"unknown nested key", "n.hcl", "server {\n  enabled = true\n  nope = 2\n}\n", []string{"n.hcl:3:3", "nope"}},
		{"refused block", "b.hcl", "\n\nvault {\n  enabled = true\n}\n", []string{"b.hcl:3:1", "vault: Drover does not support this key"}},
		{"unknown json key", "u.json", "{\n  \"region\": \"a\",\n  \"bogus\": 1\n}\n", []string{"u.json:3:", "bogus"}},
		{"bad duration", "d.hcl", "server {\n  heartbeat_grace = \"ten seconds\"\n}\n", []string{"d.hcl:2:21", "Invalid duration", "ten seconds"}},
		{"duration wrong type", "dt.hcl", "server {\n  job_gc_threshold = [1]\n}\n", []string{"dt.hcl:2:"}},
		{"bad json duration", "d.json", "{\"server\": {\n \"eval_gc_threshold\": \"1x\"}}", []string{"d.json:2:", "Invalid duration"}},
		{"port wrong type", "p.hcl", "ports {\n  http = \"abc\"\n}\n", []string{"p.hcl:2:", "number"}},
		{"bool wrong type", "e.hcl", "client {\n  enabled = [true]\n}\n", []string{"e.hcl:2:"}},
		{"syntax error", "s.hcl", "region = \n", []string{"s.hcl:1:"}},
		{"two errors", "m.hcl", "a = 1\nb = 2\n", []string{"m.hcl:1:1", "m.hcl:2:1"}},
		{"structure and value errors together", "all.hcl", "bogus = 1\nserver {\n  heartbeat_grace = \"x\"\n}\n",
			[]string{"all.hcl:1:1", "all.hcl:3:21", "Invalid duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(write(t, tc.file, tc.src))
			if err == nil {
				t.Fatal("expected error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadMissingPath(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope.hcl")); err == nil {
		t.Fatal("expected error for missing file")
	}
}

func TestLoadLayering(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"10-base.hcl":  "data_dir = \"/a\"\nserver { enabled = true }\nclient {\n enabled = true\n meta = { a = \"1\", b = \"1\" }\n}\n",
		"20-over.json": `{"server": {"enabled": false}, "client": {"meta": {"b": "2"}}}`,
		"ignored.txt":  "not config",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	last := write(t, "last.hcl", `data_dir = "/b"`)
	c, err := Load(dir, last)
	if err != nil {
		t.Fatal(err)
	}
	// Later files win, including a bool turned off, and maps merge per key.
	if c.Server.Enabled || !c.Client.Enabled || c.DataDir != "/b" || c.Region != "global" {
		t.Fatalf("layering wrong: %+v", c)
	}
	if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(c.Client.Meta, want) {
		t.Fatalf("meta = %v, want %v", c.Client.Meta, want)
	}
	d, err := LoadDir(dir)
	if err != nil || d.DataDir != "/a" || d.Region != "" {
		t.Fatalf("LoadDir = %+v, %v", d, err)
	}
}

func TestMerge(t *testing.T) {
	base := Default()
	base.Client.Meta = map[string]string{"a": "1"}
	base.Plugins = []PluginConfig{{Name: "docker", Config: map[string]any{"x": 1}}, {Name: "exec"}}
	over := &Config{
		Region:  "eu",
		Ports:   Ports{HTTP: 8080},
		Server:  ServerConfig{Enabled: true, HeartbeatGrace: time.Minute, EnabledSchedulers: []string{"batch"}},
		Client:  ClientConfig{Meta: map[string]string{"b": "2"}},
		Plugins: []PluginConfig{{Name: "docker", Config: map[string]any{"y": 2}}, {Name: "java"}},
	}
	got := base.Merge(over)

	want := Default()
	want.Region = "eu"
	want.Ports.HTTP = 8080
	want.Server.Enabled = true
	want.Server.HeartbeatGrace = time.Minute
	want.Server.EnabledSchedulers = []string{"batch"}
	want.Client.Meta = map[string]string{"a": "1", "b": "2"}
	want.Plugins = []PluginConfig{{Name: "docker", Config: map[string]any{"y": 2}}, {Name: "exec"}, {Name: "java"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merge:\n%#v\nwant\n%#v", got, want)
	}
	// Inputs stay untouched: Merge must not alias.
	if len(base.Client.Meta) != 1 || base.Plugins[0].Config["x"] != 1 || base.Region != "global" {
		t.Fatalf("Merge modified its receiver: %+v", base)
	}
	got.Plugins[0].Config["y"] = 3
	if over.Plugins[0].Config["y"] != 2 {
		t.Fatal("Merge result aliases the argument's plugin config")
	}
	if !reflect.DeepEqual(base.Merge(nil), base) {
		t.Fatal("Merge(nil) should copy")
	}
}

func TestValidate(t *testing.T) {
	valid := func() *Config {
		c := Default()
		c.DataDir = "/d"
		c.Server.Enabled = true
		return c
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   []string // substrings; nil means valid
	}{
		{"valid", func(*Config) {}, nil},
		{"lowercase level ok", func(c *Config) { c.LogLevel = "warn" }, nil},
		{"port range", func(c *Config) { c.Ports.HTTP = -1; c.Ports.Serf = 70000 }, []string{"ports.http = -1", "ports.serf = 70000"}},
		{"port 0 picks a free port", func(c *Config) { c.Ports.HTTP, c.Ports.RPC = 0, 0 }, nil},
		{"port clash", func(c *Config) { c.Ports.RPC = 4646 }, []string{"ports.rpc = 4646 is already used by ports.http"}},
		{"nothing enabled", func(c *Config) { c.Server.Enabled = false }, []string{"server.enabled or client.enabled"}},
		{"data_dir", func(c *Config) { c.DataDir = "" }, []string{"data_dir is required"}},
		{"data_dir dev ok", func(c *Config) { c.DataDir = ""; c.DevMode = true }, nil},
		{"many at once", func(c *Config) {
			c.Server.BootstrapExpect = -1
			c.Server.NumSchedulers = -2
			c.Server.HeartbeatGrace = -time.Second
			c.Server.JobGCThreshold = 0
			c.Server.MaxHeartbeatsPerSecond = 0
			c.LogLevel = "LOUD"
			c.Server.RaftLogStore = "rocksdb"
		}, []string{`raft_logstore.backend = "rocksdb"`, "bootstrap_expect = -1", "num_schedulers = -2", "heartbeat_grace = -1s",
			"job_gc_threshold = 0s", "max_heartbeats_per_second", `log_level "LOUD"`}},
		{"autopilot enterprise keys only false", func(c *Config) { c.Autopilot = DefaultAutopilot(); c.Autopilot.EnableRedundancyZones = true },
			[]string{"autopilot: enable_redundancy_zones"}},
		{"autopilot defaults ok", func(c *Config) { c.Autopilot = DefaultAutopilot() }, nil},
		{"host uuid and dmidecode only true", func(c *Config) { c.Client.NoHostUUID, c.Client.CPUDisableDmidecode = false, false },
			[]string{"no_host_uuid = false", "cpu_disable_dmidecode = false"}},
		{"raft_protocol only 3", func(c *Config) { c.Server.RaftProtocol = 2 }, []string{"raft_protocol = 2"}},
		{"event broker stays on", func(c *Config) { c.Server.EnableEventBroker = false }, []string{"enable_event_broker = false"}},
		{"raft_multiplier range", func(c *Config) { c.Server.RaftMultiplier = 11 }, []string{"raft_multiplier = 11"}},
		{"encrypt key", func(c *Config) { c.Server.Encrypt = "c2hvcnQ=" }, []string{"server.encrypt: the key is 5 bytes"}},
		{"scheduler algorithm", func(c *Config) { c.Server.DefaultSchedulerConfig = &SchedulerConfig{SchedulerAlgorithm: "random"} },
			[]string{`scheduler_algorithm = "random"`}},
		{"dynamic ports", func(c *Config) { c.Client.MinDynamicPort, c.Client.MaxDynamicPort = 30000, 20000 }, []string{"min_dynamic_port = 30000"}},
		{"gc thresholds are percents", func(c *Config) { c.Client.GC.DiskUsageThreshold = 120 }, []string{"gc_disk_usage_threshold = 120"}},
		{"host network needs cidr or interface", func(c *Config) {
			c.Client.HostNetworks = []HostNetwork{{Name: "a"}, {Name: "b", CIDR: "nope"}, {Name: "b", Interface: "eth0"}}
		}, []string{`host_network "a" needs exactly one`, `host_network "b": cidr "nope"`, `host_network "b" is defined twice`}},
		{"telemetry", func(c *Config) {
			c.Telemetry.PrefixFilter = []string{"nomad.raft"}
			c.Telemetry.StatsdAddress = "nohost"
		}, []string{`prefix_filter: "nomad.raft"`, `statsd_address = "nohost"`}},
		{"syslog facility", func(c *Config) { c.Logging.EnableSyslog, c.Logging.SyslogFacility = true, "LOCAL9" }, []string{`syslog_facility "LOCAL9"`}},
		{"advertise serf is an IP", func(c *Config) { c.Advertise.Serf = "myhost:4648" }, []string{`advertise.serf = "myhost:4648"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.mutate(c)
			err := c.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("expected error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if n := len(strings.Split(err.Error(), "\n")); n != len(tc.want) {
				t.Errorf("got %d problems, want %d: %v", n, len(tc.want), err)
			}
		})
	}
}

func TestSlogLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{
		"TRACE": LevelTrace, "debug": slog.LevelDebug, "Info": slog.LevelInfo,
		"WARN": slog.LevelWarn, "error": slog.LevelError, "bogus": slog.LevelInfo,
	} {
		if got := (&Config{LogLevel: in}).SlogLevel(); got != want {
			t.Errorf("%s -> %v, want %v", in, got, want)
		}
	}
}

func TestAdvertise_HTTPAddr(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.hcl")
	if err := os.WriteFile(path, []byte("advertise {\n  http = \"10.1.2.3\"\n  rpc = \"10.1.2.3:4647\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.AdvertiseHTTPAddr("0.0.0.0:4646"); got != "10.1.2.3:4646" {
		t.Fatalf("advertised %q", got)
	}
	if got := Default().AdvertiseHTTPAddr("127.0.0.1:5000"); got != "127.0.0.1:5000" {
		t.Fatalf("without advertise: %q", got)
	}
	c.Advertise.HTTP = "host.example:8080"
	if got := c.AdvertiseHTTPAddr("0.0.0.0:4646"); got != "host.example:8080" {
		t.Fatalf("with port: %q", got)
	}
}
