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
	Region      *string        `hcl:"region,optional"`
	Datacenter  *string        `hcl:"datacenter,optional"`
	Name        *string        `hcl:"name,optional"`
	DataDir     *string        `hcl:"data_dir,optional"`
	BindAddr    *string        `hcl:"bind_addr,optional"`
	LogLevel    *string        `hcl:"log_level,optional"`
	EnableDebug *bool          `hcl:"enable_debug,optional"`
	Ports       *filePorts     `hcl:"ports,block"`
	Addresses   *fileAddresses `hcl:"addresses,block"`
	Advertise   *fileAddresses `hcl:"advertise,block"`
	Server      *fileServer    `hcl:"server,block"`
	Client      *fileClient    `hcl:"client,block"`
	Plugins     []filePlugin   `hcl:"plugin,block"`
	ACL         *fileACL       `hcl:"acl,block"`
	TLS         *fileTLS       `hcl:"tls,block"`
	Limits      *fileLimits    `hcl:"limits,block"`
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
}

type fileServer struct {
	Enabled                *bool           `hcl:"enabled,optional"`
	BootstrapExpect        *int            `hcl:"bootstrap_expect,optional"`
	NumSchedulers          *int            `hcl:"num_schedulers,optional"`
	EnabledSchedulers      *[]string       `hcl:"enabled_schedulers,optional"`
	EventBufferSize        *int            `hcl:"event_buffer_size,optional"`
	HeartbeatGrace         hcl.Expression  `hcl:"heartbeat_grace,optional"`
	MinHeartbeatTTL        hcl.Expression  `hcl:"min_heartbeat_ttl,optional"`
	MaxHeartbeatsPerSecond *float64        `hcl:"max_heartbeats_per_second,optional"`
	EvalGCThreshold        hcl.Expression  `hcl:"eval_gc_threshold,optional"`
	JobGCThreshold         hcl.Expression  `hcl:"job_gc_threshold,optional"`
	NodeGCThreshold        hcl.Expression  `hcl:"node_gc_threshold,optional"`
	DeploymentGCThreshold  hcl.Expression  `hcl:"deployment_gc_threshold,optional"`
	ServerJoin             *fileServerJoin `hcl:"server_join,block"`
	RaftLogStore           *fileRaftLog    `hcl:"raft_logstore,block"`
	NodeRegistrationToken  *string         `hcl:"node_registration_token,optional"`
	JobMaxCount            *int            `hcl:"job_max_count,optional"`
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
	Reserved              *fileReserved     `hcl:"reserved,block"`
	HostVolumes           []fileHostVolume  `hcl:"host_volume,block"`
	NodeRegistrationToken *string           `hcl:"node_registration_token,optional"`
}

type fileHostVolume struct {
	Name     string `hcl:"name,label"`
	Path     string `hcl:"path"`
	ReadOnly *bool  `hcl:"read_only,optional"`
}

type fileReserved struct {
	CPU           *int    `hcl:"cpu,optional"`
	MemoryMB      *int    `hcl:"memory,optional"`
	DiskMB        *int    `hcl:"disk,optional"`
	ReservedPorts *string `hcl:"reserved_ports,optional"`
}

type filePlugin struct {
	Name   string            `hcl:"name,label"`
	Args   *[]string         `hcl:"args,optional"`
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
func decodeBody(body hcl.Body, dst *Config) hcl.Diagnostics {
	var fc fileConfig
	diags := gohcl.DecodeBody(body, nil, &fc)
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
	if p := fc.Ports; p != nil {
		set(&c.Ports.HTTP, p.HTTP)
		set(&c.Ports.RPC, p.RPC)
		set(&c.Ports.Serf, p.Serf)
	}
	if a := fc.Addresses; a != nil {
		set(&c.Addresses.HTTP, a.HTTP)
		set(&c.Addresses.RPC, a.RPC)
	}
	if a := fc.Advertise; a != nil {
		set(&c.Advertise.HTTP, a.HTTP)
		set(&c.Advertise.RPC, a.RPC)
	}
	var diags hcl.Diagnostics
	if fc.Server != nil {
		diags = fc.Server.apply(&c.Server)
	}
	if fc.Client != nil {
		fc.Client.apply(&c.Client)
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
	var diags hcl.Diagnostics
	if fs.RaftLogStore != nil {
		set(&s.RaftLogStore, fs.RaftLogStore.Backend)
	}
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
		{&s.JobGCThreshold, fs.JobGCThreshold},
		{&s.NodeGCThreshold, fs.NodeGCThreshold},
		{&s.DeploymentGCThreshold, fs.DeploymentGCThreshold},
	} {
		diags = append(diags, decodeDuration(d.expr, d.dst)...)
	}
	return diags
}

func (fc *fileClient) apply(c *ClientConfig) {
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
}

func (fp *filePlugin) decode() (PluginConfig, hcl.Diagnostics) {
	pc := PluginConfig{Name: fp.Name}
	set(&pc.Args, fp.Args)
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
