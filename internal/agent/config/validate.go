package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Validate reports every problem at once (joined with errors.Join) so an
// operator fixes a file in one pass instead of one error per restart.
func (c *Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	c.validatePorts(add)
	if !c.Server.Enabled && !c.Client.Enabled {
		add("at least one of server.enabled or client.enabled must be true")
	}
	if c.DataDir == "" && !c.DevMode {
		add("data_dir is required (except in -dev mode)")
	}
	if _, ok := logLevels[strings.ToUpper(c.LogLevel)]; !ok {
		add("log_level %q must be one of TRACE, DEBUG, INFO, WARN, ERROR", c.LogLevel)
	}
	c.Server.validate(add)
	c.Server.validateExtra(add)
	c.Client.validate(add)
	c.Logging.validate(add)
	c.Telemetry.validate(add)
	if a := c.Autopilot; a != nil {
		if a.EnableRedundancyZones || a.DisableUpgradeMigration || a.EnableCustomUpgrades {
			add("autopilot: enable_redundancy_zones, disable_upgrade_migration and enable_custom_upgrades are Nomad Enterprise features Drover does not have: they may only be false")
		}
		if a.MaxTrailingLogs < 0 || a.MinQuorum < 0 {
			add("autopilot: max_trailing_logs and min_quorum must not be negative")
		}
	}
	if c.Advertise.Serf != "" {
		host, _, err := net.SplitHostPort(c.Advertise.Serf)
		if err != nil {
			host = c.Advertise.Serf
		}
		if net.ParseIP(host) == nil {
			add("advertise.serf = %q must be an IP address (with an optional :port)", c.Advertise.Serf)
		}
	}
	c.ACL.validate(add)
	c.TLS.validate(add)
	return errors.Join(errs...)
}

func (c *Config) validatePorts(add func(string, ...any)) {
	seen := map[int]string{}
	for _, p := range []struct {
		name string
		port int
	}{{"http", c.Ports.HTTP}, {"rpc", c.Ports.RPC}, {"serf", c.Ports.Serf}} {
		if p.port < 0 || p.port > 65535 {
			add("ports.%s = %d is outside 0..65535 (0 picks a free port)", p.name, p.port)
			continue
		}
		if p.port == 0 {
			continue // each 0 gets its own free port
		}
		if other, dup := seen[p.port]; dup {
			add("ports.%s = %d is already used by ports.%s", p.name, p.port, other)
		}
		seen[p.port] = p.name
	}
}

func (s *ServerConfig) validate(add func(string, ...any)) {
	if s.BootstrapExpect < 0 {
		add("server.bootstrap_expect = %d must not be negative", s.BootstrapExpect)
	}
	switch s.RaftLogStore {
	case "", "wal", "boltdb":
	default:
		add("server.raft_logstore.backend = %q must be \"wal\" or \"boltdb\"", s.RaftLogStore)
	}
	if s.NumSchedulers < 0 {
		add("server.num_schedulers = %d must not be negative", s.NumSchedulers)
	}
	if s.EventBufferSize < 0 {
		add("server.event_buffer_size = %d must not be negative", s.EventBufferSize)
	}
	if s.MaxHeartbeatsPerSecond <= 0 {
		add("server.max_heartbeats_per_second = %v must be positive", s.MaxHeartbeatsPerSecond)
	}
	for _, d := range []struct {
		name string
		val  time.Duration
	}{
		{"heartbeat_grace", s.HeartbeatGrace},
		{"min_heartbeat_ttl", s.MinHeartbeatTTL},
		{"eval_gc_threshold", s.EvalGCThreshold},
		{"job_gc_threshold", s.JobGCThreshold},
		{"batch_eval_gc_threshold", s.BatchEvalGCThreshold},
		{"job_gc_interval", s.JobGCInterval},
		{"node_gc_threshold", s.NodeGCThreshold},
	} {
		if d.val <= 0 {
			add("server.%s = %s must be positive", d.name, d.val)
		}
	}
}

func (s *ServerConfig) validateExtra(add func(string, ...any)) {
	if s.RaftProtocol != 3 {
		add("server.raft_protocol = %d: Drover speaks raft protocol 3 only", s.RaftProtocol)
	}
	if !s.EnableEventBroker {
		add("server.enable_event_broker = false: Drover's event stream cannot be turned off")
	}
	if s.RaftMultiplier < 1 || s.RaftMultiplier > 10 {
		add("server.raft_multiplier = %d must be between 1 and 10", s.RaftMultiplier)
	}
	if s.Encrypt != "" {
		if _, err := GossipKey(s.Encrypt); err != nil {
			add("server.encrypt: %v", err)
		}
	}
	if d := s.DefaultSchedulerConfig; d != nil {
		switch d.SchedulerAlgorithm {
		case "", "binpack", "spread":
		default:
			add("server.default_scheduler_config.scheduler_algorithm = %q must be \"binpack\" or \"spread\"", d.SchedulerAlgorithm)
		}
	}
}

func (c *ClientConfig) validate(add func(string, ...any)) {
	if c.MinDynamicPort < 1 || c.MaxDynamicPort > 65535 || c.MinDynamicPort > c.MaxDynamicPort {
		add("client.min_dynamic_port = %d and max_dynamic_port = %d must satisfy 1 <= min <= max <= 65535", c.MinDynamicPort, c.MaxDynamicPort)
	}
	if c.MaxKillTimeout <= 0 {
		add("client.max_kill_timeout = %s must be positive", c.MaxKillTimeout)
	}
	if c.GC.Interval <= 0 {
		add("client.gc_interval = %s must be positive", c.GC.Interval)
	}
	if c.GC.MaxAllocs < 0 || c.GC.ParallelDestroys < 0 {
		add("client.gc_max_allocs and gc_parallel_destroys must not be negative")
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"gc_disk_usage_threshold", c.GC.DiskUsageThreshold}, {"gc_inode_usage_threshold", c.GC.InodeUsageThreshold}} {
		if t.v < 0 || t.v > 100 {
			add("client.%s = %v must be a percentage (0 to 100)", t.name, t.v)
		}
	}
	if !c.NoHostUUID {
		add("client.no_host_uuid = false: Drover never takes the node ID from the host (it is kept in the data dir)")
	}
	if !c.CPUDisableDmidecode {
		add("client.cpu_disable_dmidecode = false: Drover reads the CPU from /proc/cpuinfo only")
	}
	for _, s := range c.Servers {
		if strings.Contains(s, "provider=") {
			add("client.servers / server_join.retry_join %q: cloud auto-join (go-discover) is not supported; list the servers' addresses", s)
		}
	}
	seen := map[string]bool{}
	for _, hn := range c.HostNetworks {
		if seen[hn.Name] {
			add("client.host_network %q is defined twice", hn.Name)
		}
		seen[hn.Name] = true
		if (hn.CIDR == "") == (hn.Interface == "") {
			add("client.host_network %q needs exactly one of cidr or interface", hn.Name)
		}
		if hn.CIDR != "" {
			if _, _, err := net.ParseCIDR(hn.CIDR); err != nil {
				add("client.host_network %q: cidr %q: %v", hn.Name, hn.CIDR, err)
			}
		}
	}
}

func (l *Logging) validate(add func(string, ...any)) {
	if l.RotateBytes < 0 || l.RotateMaxFiles < 0 || l.RotateDuration < 0 {
		add("log_rotate_bytes, log_rotate_duration and log_rotate_max_files must not be negative")
	}
	if l.EnableSyslog {
		if _, ok := syslogFacilities[strings.ToUpper(l.SyslogFacility)]; !ok {
			add("syslog_facility %q is not a syslog facility (LOCAL0 to LOCAL7, USER, DAEMON, ...)", l.SyslogFacility)
		}
	}
}

func (t *Telemetry) validate(add func(string, ...any)) {
	if t.CollectionInterval <= 0 {
		add("telemetry.collection_interval = %s must be positive", t.CollectionInterval)
	}
	if t.InMemoryCollectionInterval <= 0 || t.InMemoryRetentionPeriod < t.InMemoryCollectionInterval {
		add("telemetry.in_memory_collection_interval (%s) must be positive and no longer than in_memory_retention_period (%s)",
			t.InMemoryCollectionInterval, t.InMemoryRetentionPeriod)
	}
	for _, p := range t.PrefixFilter {
		if len(p) < 2 || (p[0] != '+' && p[0] != '-') {
			add("telemetry.prefix_filter: %q must be +prefix (allow) or -prefix (block)", p)
		}
	}
	for _, a := range []struct{ name, addr string }{{"statsd_address", t.StatsdAddress}, {"statsite_address", t.StatsiteAddress}, {"dogstatsd_address", t.DogStatsdAddress}} {
		if a.addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a.addr); err != nil {
			add("telemetry.%s = %q must be host:port", a.name, a.addr)
		}
	}
}
