package config

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// The file* types mirror Config as it appears on disk. Scalars are pointers
// so that "absent" differs from "set to the zero value": a later file can set
// enabled = false over an earlier true. Durations stay expressions until
// decoded so their parse errors can point at file:line:col.

type fileConfig struct {
	Region      *string `hcl:"region,optional"`
	Datacenter  *string `hcl:"datacenter,optional"`
	Name        *string `hcl:"name,optional"`
	DataDir     *string `hcl:"data_dir,optional"`
	BindAddr    *string `hcl:"bind_addr,optional"`
	LogLevel    *string `hcl:"log_level,optional"`
	EnableDebug *bool   `hcl:"enable_debug,optional"`

	LogJSON            *bool          `hcl:"log_json,optional"`
	LogFile            *string        `hcl:"log_file,optional"`
	LogRotateBytes     *int           `hcl:"log_rotate_bytes,optional"`
	LogRotateDuration  hcl.Expression `hcl:"log_rotate_duration,optional"`
	LogRotateMaxFiles  *int           `hcl:"log_rotate_max_files,optional"`
	LogIncludeLocation *bool          `hcl:"log_include_location,optional"`
	EnableSyslog       *bool          `hcl:"enable_syslog,optional"`
	SyslogFacility     *string        `hcl:"syslog_facility,optional"`
	LeaveOnInterrupt   *bool          `hcl:"leave_on_interrupt,optional"`
	LeaveOnTerminate   *bool          `hcl:"leave_on_terminate,optional"`
	Telemetry          *fileTelemetry `hcl:"telemetry,block"`
	UI                 *fileUI        `hcl:"ui,block"`

	HTTPAPIResponseHeaders map[string]string `hcl:"http_api_response_headers,optional"`

	Ports     *filePorts     `hcl:"ports,block"`
	Addresses *fileAddresses `hcl:"addresses,block"`
	Advertise *fileAddresses `hcl:"advertise,block"`
	Autopilot *fileAutopilot `hcl:"autopilot,block"`
	Server    *fileServer    `hcl:"server,block"`
	Client    *fileClient    `hcl:"client,block"`
	Plugins   []filePlugin   `hcl:"plugin,block"`
	ACL       *fileACL       `hcl:"acl,block"`
	TLS       *fileTLS       `hcl:"tls,block"`
	Limits    *fileLimits    `hcl:"limits,block"`
}

// fileLimits is the limits { } block.
type fileLimits struct {
	HTTPMaxConnsPerClient *int           `hcl:"http_max_conns_per_client,optional"`
	RPCMaxConnsPerClient  *int           `hcl:"rpc_max_conns_per_client,optional"`
	HTTPSHandshakeTimeout hcl.Expression `hcl:"https_handshake_timeout,optional"`
	RPCHandshakeTimeout   hcl.Expression `hcl:"rpc_handshake_timeout,optional"`
}

type filePorts struct {
	HTTP *int `hcl:"http,optional"`
	RPC  *int `hcl:"rpc,optional"`
	Serf *int `hcl:"serf,optional"`
}

type fileAddresses struct {
	HTTP *string `hcl:"http,optional"`
	RPC  *string `hcl:"rpc,optional"`
	Serf *string `hcl:"serf,optional"`
}

type fileAutopilot struct {
	CleanupDeadServers      *bool          `hcl:"cleanup_dead_servers,optional"`
	LastContactThreshold    hcl.Expression `hcl:"last_contact_threshold,optional"`
	MaxTrailingLogs         *int           `hcl:"max_trailing_logs,optional"`
	MinQuorum               *int           `hcl:"min_quorum,optional"`
	ServerStabilizationTime hcl.Expression `hcl:"server_stabilization_time,optional"`
	EnableRedundancyZones   *bool          `hcl:"enable_redundancy_zones,optional"`
	DisableUpgradeMigration *bool          `hcl:"disable_upgrade_migration,optional"`
	EnableCustomUpgrades    *bool          `hcl:"enable_custom_upgrades,optional"`
}

func (fa *fileAutopilot) apply(c *Config) hcl.Diagnostics {
	if c.Autopilot == nil {
		c.Autopilot = DefaultAutopilot()
	}
	a := c.Autopilot
	set(&a.CleanupDeadServers, fa.CleanupDeadServers)
	set(&a.MaxTrailingLogs, fa.MaxTrailingLogs)
	set(&a.MinQuorum, fa.MinQuorum)
	set(&a.EnableRedundancyZones, fa.EnableRedundancyZones)
	set(&a.DisableUpgradeMigration, fa.DisableUpgradeMigration)
	set(&a.EnableCustomUpgrades, fa.EnableCustomUpgrades)
	diags := decodeNonNegativeDuration(fa.LastContactThreshold, &a.LastContactThreshold)
	return append(diags, decodeNonNegativeDuration(fa.ServerStabilizationTime, &a.ServerStabilizationTime)...)
}

type fileServer struct {
	Enabled                *bool            `hcl:"enabled,optional"`
	BootstrapExpect        *int             `hcl:"bootstrap_expect,optional"`
	NumSchedulers          *int             `hcl:"num_schedulers,optional"`
	EnabledSchedulers      *[]string        `hcl:"enabled_schedulers,optional"`
	EventBufferSize        *int             `hcl:"event_buffer_size,optional"`
	HeartbeatGrace         hcl.Expression   `hcl:"heartbeat_grace,optional"`
	MinHeartbeatTTL        hcl.Expression   `hcl:"min_heartbeat_ttl,optional"`
	MaxHeartbeatsPerSecond *float64         `hcl:"max_heartbeats_per_second,optional"`
	EvalGCThreshold        hcl.Expression   `hcl:"eval_gc_threshold,optional"`
	BatchEvalGCThreshold   hcl.Expression   `hcl:"batch_eval_gc_threshold,optional"`
	JobGCThreshold         hcl.Expression   `hcl:"job_gc_threshold,optional"`
	JobGCInterval          hcl.Expression   `hcl:"job_gc_interval,optional"`
	NodeGCThreshold        hcl.Expression   `hcl:"node_gc_threshold,optional"`
	RaftMultiplier         *int             `hcl:"raft_multiplier,optional"`
	RaftProtocol           *int             `hcl:"raft_protocol,optional"`
	EnableEventBroker      *bool            `hcl:"enable_event_broker,optional"`
	Encrypt                *string          `hcl:"encrypt,optional"`
	DefaultSchedulerConfig *fileSchedConfig `hcl:"default_scheduler_config,block"`
	ServerJoin             *fileServerJoin  `hcl:"server_join,block"`
	// RetryJoin, RetryInterval and RetryMax are Nomad's older spelling
	// of server_join's keys, still accepted.
	RetryJoin             *[]string      `hcl:"retry_join,optional"`
	RetryInterval         hcl.Expression `hcl:"retry_interval,optional"`
	RetryMax              *int           `hcl:"retry_max,optional"`
	RaftLogStore          *fileRaftLog   `hcl:"raft_logstore,block"`
	NodeRegistrationToken *string        `hcl:"node_registration_token,optional"`
	JobMaxCount           *int           `hcl:"job_max_count,optional"`
	OIDCIssuer            *string        `hcl:"oidc_issuer,optional"`
}

type fileSchedConfig struct {
	SchedulerAlgorithm            *string         `hcl:"scheduler_algorithm,optional"`
	MemoryOversubscriptionEnabled *bool           `hcl:"memory_oversubscription_enabled,optional"`
	RejectJobRegistration         *bool           `hcl:"reject_job_registration,optional"`
	PauseEvalBroker               *bool           `hcl:"pause_eval_broker,optional"`
	Preemption                    *filePreemption `hcl:"preemption_config,block"`
}

type filePreemption struct {
	Batch    *bool `hcl:"batch_scheduler_enabled,optional"`
	System   *bool `hcl:"system_scheduler_enabled,optional"`
	SysBatch *bool `hcl:"sysbatch_scheduler_enabled,optional"`
	Service  *bool `hcl:"service_scheduler_enabled,optional"`
}

type fileRaftLog struct {
	Backend *string `hcl:"backend,optional"`
}

type fileServerJoin struct {
	RetryJoin     *[]string      `hcl:"retry_join,optional"`
	RetryInterval hcl.Expression `hcl:"retry_interval,optional"`
	RetryMax      *int           `hcl:"retry_max,optional"`
}

type fileClient struct {
	Enabled               *bool             `hcl:"enabled,optional"`
	Servers               *[]string         `hcl:"servers,optional"`
	NodeClass             *string           `hcl:"node_class,optional"`
	NodePool              *string           `hcl:"node_pool,optional"`
	Meta                  map[string]string `hcl:"meta,optional"`
	Options               map[string]string `hcl:"options,optional"`
	StateDir              *string           `hcl:"state_dir,optional"`
	AllocDir              *string           `hcl:"alloc_dir,optional"`
	NetworkInterface      *string           `hcl:"network_interface,optional"`
	CNIPath               *string           `hcl:"cni_path,optional"`
	CNIConfigDir          *string           `hcl:"cni_config_dir,optional"`
	BridgeNetworkSubnet   *string           `hcl:"bridge_network_subnet,optional"`
	CPUTotalCompute       *int              `hcl:"cpu_total_compute,optional"`
	MemoryTotalMB         *int              `hcl:"memory_total_mb,optional"`
	MinDynamicPort        *int              `hcl:"min_dynamic_port,optional"`
	MaxDynamicPort        *int              `hcl:"max_dynamic_port,optional"`
	MaxKillTimeout        hcl.Expression    `hcl:"max_kill_timeout,optional"`
	DisableRemoteExec     *bool             `hcl:"disable_remote_exec,optional"`
	NoHostUUID            *bool             `hcl:"no_host_uuid,optional"`
	CPUDisableDmidecode   *bool             `hcl:"cpu_disable_dmidecode,optional"`
	GCInterval            hcl.Expression    `hcl:"gc_interval,optional"`
	GCMaxAllocs           *int              `hcl:"gc_max_allocs,optional"`
	GCDiskUsageThreshold  *float64          `hcl:"gc_disk_usage_threshold,optional"`
	GCInodeUsageThreshold *float64          `hcl:"gc_inode_usage_threshold,optional"`
	GCParallelDestroys    *int              `hcl:"gc_parallel_destroys,optional"`
	Reserved              *fileReserved     `hcl:"reserved,block"`
	HostVolumes           []fileHostVolume  `hcl:"host_volume,block"`
	HostNetworks          []fileHostNetwork `hcl:"host_network,block"`
	ServerJoin            *fileClientJoin   `hcl:"server_join,block"`
	NodeRegistrationToken *string           `hcl:"node_registration_token,optional"`
}

type fileHostVolume struct {
	Name     string `hcl:"name,label"`
	Path     string `hcl:"path"`
	ReadOnly *bool  `hcl:"read_only,optional"`
}

// fileClientJoin is client { server_join { } }: the servers to reach.
type fileClientJoin struct {
	RetryJoin *[]string `hcl:"retry_join,optional"`
}

type fileHostNetwork struct {
	Name          string  `hcl:"name,label"`
	CIDR          *string `hcl:"cidr,optional"`
	Interface     *string `hcl:"interface,optional"`
	ReservedPorts *string `hcl:"reserved_ports,optional"`
}

type fileReserved struct {
	CPU           *int    `hcl:"cpu,optional"`
	MemoryMB      *int    `hcl:"memory,optional"`
	DiskMB        *int    `hcl:"disk,optional"`
	ReservedPorts *string `hcl:"reserved_ports,optional"`
}

type filePlugin struct {
	Name   string            `hcl:"name,label"`
	Config *filePluginConfig `hcl:"config,block"`
}

// filePluginConfig captures the config { } body undecoded; its shape belongs
// to the plugin, not to us.
type filePluginConfig struct {
	Body hcl.Body `hcl:",remain"`
}

// decodeBody decodes one parsed file and applies it on top of dst. It
// applies even after structural errors so that value errors (a bad duration)
// are reported in the same pass; callers discard dst when diags has errors.
//
// The body is judged against the key table as it is decoded (keyBody):
// a key Drover refuses or does not know is an error at its file:line:col,
// one per key; a warned key is added to dst.Warnings.
func decodeBody(body hcl.Body, dst *Config) hcl.Diagnostics {
	var fc fileConfig
	rep := &keyReport{}
	diags := gohcl.DecodeBody(keyBody{Body: body, rep: rep}, nil, &fc)
	diags = append(diags, rep.diags...)
	dst.Warnings = append(dst.Warnings, rep.warnings...)
	return append(diags, fc.apply(dst)...)
}

func (fc *fileConfig) apply(c *Config) hcl.Diagnostics {
	set(&c.Region, fc.Region)
	set(&c.Datacenter, fc.Datacenter)
	set(&c.Name, fc.Name)
	set(&c.DataDir, fc.DataDir)
	set(&c.BindAddr, fc.BindAddr)
	set(&c.LogLevel, fc.LogLevel)
	set(&c.EnableDebug, fc.EnableDebug)
	set(&c.Logging.JSON, fc.LogJSON)
	set(&c.Logging.File, fc.LogFile)
	set(&c.Logging.RotateBytes, fc.LogRotateBytes)
	set(&c.Logging.RotateMaxFiles, fc.LogRotateMaxFiles)
	set(&c.Logging.IncludeLocation, fc.LogIncludeLocation)
	set(&c.Logging.EnableSyslog, fc.EnableSyslog)
	set(&c.Logging.SyslogFacility, fc.SyslogFacility)
	set(&c.LeaveOnInterrupt, fc.LeaveOnInterrupt)
	set(&c.LeaveOnTerminate, fc.LeaveOnTerminate)
	diags := decodeDuration(fc.LogRotateDuration, &c.Logging.RotateDuration)
	c.HTTPAPIResponseHeaders = mergeMap(c.HTTPAPIResponseHeaders, fc.HTTPAPIResponseHeaders)
	if fc.UI != nil {
		set(&c.UIEnabled, fc.UI.Enabled)
	}
	if fc.Telemetry != nil {
		diags = append(diags, fc.Telemetry.apply(&c.Telemetry)...)
	}
	if p := fc.Ports; p != nil {
		set(&c.Ports.HTTP, p.HTTP)
		set(&c.Ports.RPC, p.RPC)
		set(&c.Ports.Serf, p.Serf)
	}
	if a := fc.Addresses; a != nil {
		set(&c.Addresses.HTTP, a.HTTP)
		set(&c.Addresses.RPC, a.RPC)
		set(&c.Addresses.Serf, a.Serf)
	}
	if a := fc.Advertise; a != nil {
		set(&c.Advertise.HTTP, a.HTTP)
		set(&c.Advertise.RPC, a.RPC)
		set(&c.Advertise.Serf, a.Serf)
	}
	if fc.Autopilot != nil {
		diags = append(diags, fc.Autopilot.apply(c)...)
	}
	if fc.Server != nil {
		diags = append(diags, fc.Server.apply(&c.Server)...)
	}
	if fc.Client != nil {
		diags = append(diags, fc.Client.apply(&c.Client)...)
	}
	if fc.ACL != nil {
		diags = append(diags, fc.ACL.apply(&c.ACL)...)
	}
	if fc.TLS != nil {
		fc.TLS.apply(&c.TLS)
	}
	if fc.Limits != nil {
		diags = append(diags, fc.Limits.apply(&c.Limits)...)
	}
	for _, p := range fc.Plugins {
		pc, d := p.decode()
		diags = append(diags, d...)
		c.Plugins = mergePlugins(c.Plugins, []PluginConfig{pc})
	}
	return diags
}

func (fl *fileLimits) apply(l *Limits) hcl.Diagnostics {
	set(&l.HTTPMaxConnsPerClient, fl.HTTPMaxConnsPerClient)
	set(&l.RPCMaxConnsPerClient, fl.RPCMaxConnsPerClient)
	var diags hcl.Diagnostics
	for _, d := range []struct {
		dst  *time.Duration
		expr hcl.Expression
	}{
		{&l.HTTPSHandshakeTimeout, fl.HTTPSHandshakeTimeout},
		{&l.RPCHandshakeTimeout, fl.RPCHandshakeTimeout},
	} {
		diags = append(diags, decodeNonNegativeDuration(d.expr, d.dst)...)
	}
	return diags
}

// decodeNonNegativeDuration is decodeDuration refusing a negative value
// (0 is how a limit is turned off).
func decodeNonNegativeDuration(expr hcl.Expression, dst *time.Duration) hcl.Diagnostics {
	old := *dst
	diags := decodeDuration(expr, dst)
	if *dst < 0 {
		*dst = old
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid duration",
			Detail: "a limit may not be negative (0 turns it off)", Subject: expr.Range().Ptr()}}
	}
	return diags
}

func (fs *fileServer) apply(s *ServerConfig) hcl.Diagnostics {
	set(&s.Enabled, fs.Enabled)
	set(&s.BootstrapExpect, fs.BootstrapExpect)
	set(&s.NumSchedulers, fs.NumSchedulers)
	set(&s.EnabledSchedulers, fs.EnabledSchedulers)
	set(&s.EventBufferSize, fs.EventBufferSize)
	set(&s.MaxHeartbeatsPerSecond, fs.MaxHeartbeatsPerSecond)
	set(&s.NodeRegistrationToken, fs.NodeRegistrationToken)
	set(&s.JobMaxCount, fs.JobMaxCount)
	set(&s.OIDCIssuer, fs.OIDCIssuer)
	set(&s.RaftMultiplier, fs.RaftMultiplier)
	set(&s.RaftProtocol, fs.RaftProtocol)
	set(&s.EnableEventBroker, fs.EnableEventBroker)
	set(&s.Encrypt, fs.Encrypt)
	if d := fs.DefaultSchedulerConfig; d != nil {
		if s.DefaultSchedulerConfig == nil {
			s.DefaultSchedulerConfig = &SchedulerConfig{SchedulerAlgorithm: "binpack", PreemptSystem: true}
		}
		sc := s.DefaultSchedulerConfig
		set(&sc.SchedulerAlgorithm, d.SchedulerAlgorithm)
		set(&sc.MemoryOversubscriptionEnabled, d.MemoryOversubscriptionEnabled)
		set(&sc.RejectJobRegistration, d.RejectJobRegistration)
		set(&sc.PauseEvalBroker, d.PauseEvalBroker)
		if p := d.Preemption; p != nil {
			set(&sc.PreemptBatch, p.Batch)
			set(&sc.PreemptSystem, p.System)
			set(&sc.PreemptSysBatch, p.SysBatch)
			set(&sc.PreemptService, p.Service)
		}
	}
	var diags hcl.Diagnostics
	if fs.RaftLogStore != nil {
		set(&s.RaftLogStore, fs.RaftLogStore.Backend)
	}
	set(&s.ServerJoin.RetryJoin, fs.RetryJoin)
	set(&s.ServerJoin.RetryMax, fs.RetryMax)
	diags = append(diags, decodeDuration(fs.RetryInterval, &s.ServerJoin.RetryInterval)...)
	if fs.ServerJoin != nil {
		set(&s.ServerJoin.RetryJoin, fs.ServerJoin.RetryJoin)
		set(&s.ServerJoin.RetryMax, fs.ServerJoin.RetryMax)
		diags = append(diags, decodeDuration(fs.ServerJoin.RetryInterval, &s.ServerJoin.RetryInterval)...)
	}
	for _, d := range []struct {
		dst  *time.Duration
		expr hcl.Expression
	}{
		{&s.HeartbeatGrace, fs.HeartbeatGrace},
		{&s.MinHeartbeatTTL, fs.MinHeartbeatTTL},
		{&s.EvalGCThreshold, fs.EvalGCThreshold},
		{&s.BatchEvalGCThreshold, fs.BatchEvalGCThreshold},
		{&s.JobGCThreshold, fs.JobGCThreshold},
		{&s.JobGCInterval, fs.JobGCInterval},
		{&s.NodeGCThreshold, fs.NodeGCThreshold},
	} {
		diags = append(diags, decodeDuration(d.expr, d.dst)...)
	}
	return diags
}

func (fc *fileClient) apply(c *ClientConfig) hcl.Diagnostics {
	set(&c.Enabled, fc.Enabled)
	set(&c.Servers, fc.Servers)
	set(&c.NodeClass, fc.NodeClass)
	set(&c.NodePool, fc.NodePool)
	c.Meta = mergeMap(c.Meta, fc.Meta)
	c.Options = mergeMap(c.Options, fc.Options)
	set(&c.StateDir, fc.StateDir)
	set(&c.AllocDir, fc.AllocDir)
	set(&c.NetworkInterface, fc.NetworkInterface)
	set(&c.CNIPath, fc.CNIPath)
	set(&c.CNIConfigDir, fc.CNIConfigDir)
	set(&c.BridgeNetworkSubnet, fc.BridgeNetworkSubnet)
	set(&c.CPUTotalCompute, fc.CPUTotalCompute)
	set(&c.MemoryTotalMB, fc.MemoryTotalMB)
	set(&c.NodeRegistrationToken, fc.NodeRegistrationToken)
	set(&c.DisableRemoteExec, fc.DisableRemoteExec)
	set(&c.NoHostUUID, fc.NoHostUUID)
	set(&c.CPUDisableDmidecode, fc.CPUDisableDmidecode)
	if j := fc.ServerJoin; j != nil && j.RetryJoin != nil {
		// The client dials every listed server (Drover's client keeps
		// trying them; it has no join attempts to count).
		c.Servers = append(append([]string(nil), c.Servers...), *j.RetryJoin...)
	}
	set(&c.MinDynamicPort, fc.MinDynamicPort)
	set(&c.MaxDynamicPort, fc.MaxDynamicPort)
	set(&c.GC.MaxAllocs, fc.GCMaxAllocs)
	set(&c.GC.DiskUsageThreshold, fc.GCDiskUsageThreshold)
	set(&c.GC.InodeUsageThreshold, fc.GCInodeUsageThreshold)
	set(&c.GC.ParallelDestroys, fc.GCParallelDestroys)
	diags := decodeDuration(fc.MaxKillTimeout, &c.MaxKillTimeout)
	diags = append(diags, decodeDuration(fc.GCInterval, &c.GC.Interval)...)
	for _, hn := range fc.HostNetworks {
		n := HostNetwork{Name: hn.Name}
		set(&n.CIDR, hn.CIDR)
		set(&n.Interface, hn.Interface)
		set(&n.ReservedPorts, hn.ReservedPorts)
		c.HostNetworks = append(c.HostNetworks, n)
	}
	if r := fc.Reserved; r != nil {
		set(&c.Reserved.CPU, r.CPU)
		set(&c.Reserved.MemoryMB, r.MemoryMB)
		set(&c.Reserved.DiskMB, r.DiskMB)
		set(&c.Reserved.ReservedPorts, r.ReservedPorts)
	}
	for _, hv := range fc.HostVolumes {
		v := HostVolume{Name: hv.Name, Path: hv.Path}
		set(&v.ReadOnly, hv.ReadOnly)
		c.HostVolumes = append(c.HostVolumes, v)
	}
	return diags
}

func (fp *filePlugin) decode() (PluginConfig, hcl.Diagnostics) {
	pc := PluginConfig{Name: fp.Name}
	if fp.Config == nil {
		return pc, nil
	}
	m, diags := bodyToMap(fp.Config.Body)
	pc.Config = m
	return pc, diags
}

// set overwrites *dst only when the file gave a value.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// decodeDuration parses a Go duration string ("30s"); an absent attribute
// (null) leaves dst alone.
func decodeDuration(expr hcl.Expression, dst *time.Duration) hcl.Diagnostics {
	if expr == nil {
		return nil
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.IsNull() {
		return diags
	}
	var s string
	if diags := gohcl.DecodeExpression(expr, nil, &s); diags.HasErrors() {
		return diags
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("%q is not a duration (examples: \"30s\", \"5m\", \"1h\"): %v", s, err),
			Subject:  expr.Range().Ptr(),
		}}
	}
	*dst = d
	return nil
}

type fileTelemetry struct {
	CollectionInterval                 hcl.Expression `hcl:"collection_interval,optional"`
	DisableHostname                    *bool          `hcl:"disable_hostname,optional"`
	UseNodeName                        *bool          `hcl:"use_node_name,optional"`
	EnableHostnameLabel                *bool          `hcl:"enable_hostname_label,optional"`
	StatsdAddress                      *string        `hcl:"statsd_address,optional"`
	StatsiteAddress                    *string        `hcl:"statsite_address,optional"`
	DogStatsdAddress                   *string        `hcl:"dogstatsd_address,optional"`
	DogStatsdTags                      *[]string      `hcl:"dogstatsd_tags,optional"`
	PrometheusMetrics                  *bool          `hcl:"prometheus_metrics,optional"`
	PublishAllocationMetrics           *bool          `hcl:"publish_allocation_metrics,optional"`
	PublishNodeMetrics                 *bool          `hcl:"publish_node_metrics,optional"`
	FilterDefault                      *bool          `hcl:"filter_default,optional"`
	PrefixFilter                       *[]string      `hcl:"prefix_filter,optional"`
	DisableDispatchedJobSummaryMetrics *bool          `hcl:"disable_dispatched_job_summary_metrics,optional"`
	InMemoryCollectionInterval         hcl.Expression `hcl:"in_memory_collection_interval,optional"`
	InMemoryRetentionPeriod            hcl.Expression `hcl:"in_memory_retention_period,optional"`
}

func (ft *fileTelemetry) apply(t *Telemetry) hcl.Diagnostics {
	set(&t.DisableHostname, ft.DisableHostname)
	set(&t.UseNodeName, ft.UseNodeName)
	set(&t.EnableHostnameLabel, ft.EnableHostnameLabel)
	set(&t.StatsdAddress, ft.StatsdAddress)
	set(&t.StatsiteAddress, ft.StatsiteAddress)
	set(&t.DogStatsdAddress, ft.DogStatsdAddress)
	set(&t.DogStatsdTags, ft.DogStatsdTags)
	set(&t.PrometheusMetrics, ft.PrometheusMetrics)
	set(&t.PublishAllocationMetrics, ft.PublishAllocationMetrics)
	set(&t.PublishNodeMetrics, ft.PublishNodeMetrics)
	set(&t.FilterDefault, ft.FilterDefault)
	set(&t.PrefixFilter, ft.PrefixFilter)
	set(&t.DisableDispatchedJobSummaryMetrics, ft.DisableDispatchedJobSummaryMetrics)
	diags := decodeDuration(ft.CollectionInterval, &t.CollectionInterval)
	diags = append(diags, decodeDuration(ft.InMemoryCollectionInterval, &t.InMemoryCollectionInterval)...)
	return append(diags, decodeDuration(ft.InMemoryRetentionPeriod, &t.InMemoryRetentionPeriod)...)
}

// fileUI is ui { }: only enabled acts; its cosmetic keys are warned (the
// key table).
type fileUI struct {
	Enabled *bool `hcl:"enabled,optional"`
}
