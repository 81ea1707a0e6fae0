package config

import (
	"errors"
	"fmt"
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
		{"node_gc_threshold", s.NodeGCThreshold},
		{"deployment_gc_threshold", s.DeploymentGCThreshold},
	} {
		if d.val <= 0 {
			add("server.%s = %s must be positive", d.name, d.val)
		}
	}
}
