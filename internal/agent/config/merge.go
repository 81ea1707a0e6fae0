package config

import "maps"

// Merge returns a new Config: c overlaid with every value o sets. A zero
// value in o means "not set", so Merge cannot turn a bool off; Load applies
// files field by field to avoid that. Maps merge per key, slices are
// replaced, plugins merge by name. Neither input is modified.
func (c *Config) Merge(o *Config) *Config {
	r := c.Copy()
	if o == nil {
		return r
	}
	setNZ(&r.Region, o.Region)
	setNZ(&r.Datacenter, o.Datacenter)
	setNZ(&r.Name, o.Name)
	setNZ(&r.DataDir, o.DataDir)
	setNZ(&r.BindAddr, o.BindAddr)
	setNZ(&r.LogLevel, o.LogLevel)
	r.EnableDebug = r.EnableDebug || o.EnableDebug
	setNZ(&r.Ports.HTTP, o.Ports.HTTP)
	setNZ(&r.Ports.RPC, o.Ports.RPC)
	setNZ(&r.Ports.Serf, o.Ports.Serf)
	setNZ(&r.Addresses.HTTP, o.Addresses.HTTP)
	setNZ(&r.Addresses.RPC, o.Addresses.RPC)
	setNZ(&r.Addresses.Serf, o.Addresses.Serf)
	setNZ(&r.Advertise.Serf, o.Advertise.Serf)
	if o.Autopilot != nil {
		ap := *o.Autopilot
		r.Autopilot = &ap
	}
	r.Logging.merge(&o.Logging)
	r.LeaveOnInterrupt = r.LeaveOnInterrupt || o.LeaveOnInterrupt
	r.LeaveOnTerminate = r.LeaveOnTerminate || o.LeaveOnTerminate
	r.Telemetry.merge(&o.Telemetry)
	r.UIEnabled = r.UIEnabled || o.UIEnabled
	r.HTTPAPIResponseHeaders = mergeMap(maps.Clone(r.HTTPAPIResponseHeaders), o.HTTPAPIResponseHeaders)
	r.Warnings = append(cloneSlice(r.Warnings), o.Warnings...)
	setNZ(&r.Advertise.HTTP, o.Advertise.HTTP)
	setNZ(&r.Advertise.RPC, o.Advertise.RPC)
	r.Server.merge(&o.Server)
	r.Client.merge(&o.Client)
	r.Plugins = mergePlugins(r.Plugins, o.Plugins)
	r.ACL.merge(&o.ACL)
	r.TLS.merge(&o.TLS)
	setNZ(&r.Limits.HTTPMaxConnsPerClient, o.Limits.HTTPMaxConnsPerClient)
	setNZ(&r.Limits.RPCMaxConnsPerClient, o.Limits.RPCMaxConnsPerClient)
	setNZ(&r.Limits.HTTPSHandshakeTimeout, o.Limits.HTTPSHandshakeTimeout)
	setNZ(&r.Limits.RPCHandshakeTimeout, o.Limits.RPCHandshakeTimeout)
	setNZ(&r.DevMode, o.DevMode)
	return r
}

func (s *ServerConfig) merge(o *ServerConfig) {
	setNZ(&s.Enabled, o.Enabled)
	setNZ(&s.BootstrapExpect, o.BootstrapExpect)
	setNZ(&s.NumSchedulers, o.NumSchedulers)
	setSlice(&s.EnabledSchedulers, o.EnabledSchedulers)
	setNZ(&s.HeartbeatGrace, o.HeartbeatGrace)
	setNZ(&s.MinHeartbeatTTL, o.MinHeartbeatTTL)
	setNZ(&s.MaxHeartbeatsPerSecond, o.MaxHeartbeatsPerSecond)
	setNZ(&s.EvalGCThreshold, o.EvalGCThreshold)
	setNZ(&s.JobGCThreshold, o.JobGCThreshold)
	setNZ(&s.BatchEvalGCThreshold, o.BatchEvalGCThreshold)
	setNZ(&s.JobGCInterval, o.JobGCInterval)
	setNZ(&s.NodeGCThreshold, o.NodeGCThreshold)
	setNZ(&s.RaftMultiplier, o.RaftMultiplier)
	setNZ(&s.RaftProtocol, o.RaftProtocol)
	setNZ(&s.Encrypt, o.Encrypt)
	if o.DefaultSchedulerConfig != nil {
		sc := *o.DefaultSchedulerConfig
		s.DefaultSchedulerConfig = &sc
	}
	setSlice(&s.ServerJoin.RetryJoin, o.ServerJoin.RetryJoin)
	setNZ(&s.RaftLogStore, o.RaftLogStore)
	setNZ(&s.NodeRegistrationToken, o.NodeRegistrationToken)
	setNZ(&s.OIDCIssuer, o.OIDCIssuer)
	setNZ(&s.JobMaxCount, o.JobMaxCount)
	setNZ(&s.ServerJoin.RetryInterval, o.ServerJoin.RetryInterval)
	setNZ(&s.ServerJoin.RetryMax, o.ServerJoin.RetryMax)
}

func (c *ClientConfig) merge(o *ClientConfig) {
	setNZ(&c.Enabled, o.Enabled)
	setSlice(&c.Servers, o.Servers)
	setNZ(&c.NodeClass, o.NodeClass)
	setNZ(&c.NodePool, o.NodePool)
	c.Meta = mergeMap(c.Meta, o.Meta)
	c.Options = mergeMap(c.Options, o.Options)
	setNZ(&c.StateDir, o.StateDir)
	setNZ(&c.AllocDir, o.AllocDir)
	setNZ(&c.NetworkInterface, o.NetworkInterface)
	setNZ(&c.CNIPath, o.CNIPath)
	setNZ(&c.CNIConfigDir, o.CNIConfigDir)
	setNZ(&c.BridgeNetworkSubnet, o.BridgeNetworkSubnet)
	setNZ(&c.CPUTotalCompute, o.CPUTotalCompute)
	setNZ(&c.MemoryTotalMB, o.MemoryTotalMB)
	setNZ(&c.NodeRegistrationToken, o.NodeRegistrationToken)
	setNZ(&c.Reserved.CPU, o.Reserved.CPU)
	setNZ(&c.Reserved.MemoryMB, o.Reserved.MemoryMB)
	setNZ(&c.Reserved.DiskMB, o.Reserved.DiskMB)
	setNZ(&c.Reserved.ReservedPorts, o.Reserved.ReservedPorts)
	setNZ(&c.MinDynamicPort, o.MinDynamicPort)
	setNZ(&c.MaxDynamicPort, o.MaxDynamicPort)
	setNZ(&c.MaxKillTimeout, o.MaxKillTimeout)
	c.DisableRemoteExec = c.DisableRemoteExec || o.DisableRemoteExec
	setNZ(&c.GC.Interval, o.GC.Interval)
	setNZ(&c.GC.MaxAllocs, o.GC.MaxAllocs)
	setNZ(&c.GC.DiskUsageThreshold, o.GC.DiskUsageThreshold)
	setNZ(&c.GC.InodeUsageThreshold, o.GC.InodeUsageThreshold)
	setNZ(&c.GC.ParallelDestroys, o.GC.ParallelDestroys)
	c.HostVolumes = append(c.HostVolumes, o.HostVolumes...)
	c.HostNetworks = append(c.HostNetworks, o.HostNetworks...)
}

func (l *Logging) merge(o *Logging) {
	l.JSON = l.JSON || o.JSON
	setNZ(&l.File, o.File)
	setNZ(&l.RotateBytes, o.RotateBytes)
	setNZ(&l.RotateDuration, o.RotateDuration)
	setNZ(&l.RotateMaxFiles, o.RotateMaxFiles)
	l.IncludeLocation = l.IncludeLocation || o.IncludeLocation
	l.EnableSyslog = l.EnableSyslog || o.EnableSyslog
	setNZ(&l.SyslogFacility, o.SyslogFacility)
}

// merge overlays o's non-zero values; Merge cannot turn a bool off (Load
// applies files key by key for that), so the default-true telemetry bools
// stay as c has them.
func (t *Telemetry) merge(o *Telemetry) {
	setNZ(&t.CollectionInterval, o.CollectionInterval)
	t.DisableHostname = t.DisableHostname || o.DisableHostname
	t.UseNodeName = t.UseNodeName || o.UseNodeName
	t.EnableHostnameLabel = t.EnableHostnameLabel || o.EnableHostnameLabel
	setNZ(&t.StatsdAddress, o.StatsdAddress)
	setNZ(&t.StatsiteAddress, o.StatsiteAddress)
	setNZ(&t.DogStatsdAddress, o.DogStatsdAddress)
	setSlice(&t.DogStatsdTags, o.DogStatsdTags)
	setSlice(&t.PrefixFilter, o.PrefixFilter)
	t.DisableDispatchedJobSummaryMetrics = t.DisableDispatchedJobSummaryMetrics || o.DisableDispatchedJobSummaryMetrics
	setNZ(&t.InMemoryCollectionInterval, o.InMemoryCollectionInterval)
	setNZ(&t.InMemoryRetentionPeriod, o.InMemoryRetentionPeriod)
}

// Copy returns a deep copy, so merged results never alias their inputs.
func (c *Config) Copy() *Config {
	r := *c
	r.Server.EnabledSchedulers = cloneSlice(c.Server.EnabledSchedulers)
	r.Server.ServerJoin.RetryJoin = cloneSlice(c.Server.ServerJoin.RetryJoin)
	r.Client.Servers = cloneSlice(c.Client.Servers)
	r.Client.Meta = maps.Clone(c.Client.Meta)
	r.Client.Options = maps.Clone(c.Client.Options)
	r.HTTPAPIResponseHeaders = maps.Clone(c.HTTPAPIResponseHeaders)
	r.Client.HostVolumes = cloneSlice(c.Client.HostVolumes)
	r.Client.HostNetworks = cloneSlice(c.Client.HostNetworks)
	r.Telemetry.DogStatsdTags = cloneSlice(c.Telemetry.DogStatsdTags)
	r.Telemetry.PrefixFilter = cloneSlice(c.Telemetry.PrefixFilter)
	r.Warnings = cloneSlice(c.Warnings)
	if c.Autopilot != nil {
		ap := *c.Autopilot
		r.Autopilot = &ap
	}
	if c.Server.DefaultSchedulerConfig != nil {
		sc := *c.Server.DefaultSchedulerConfig
		r.Server.DefaultSchedulerConfig = &sc
	}
	r.Plugins = nil
	for _, p := range c.Plugins {
		r.Plugins = append(r.Plugins, p.copy())
	}
	return &r
}

func (p PluginConfig) copy() PluginConfig {
	if p.Config != nil {
		p.Config = deepCopy(p.Config).(map[string]any)
	}
	return p
}

// deepCopy copies the plain values produced by bodyToMap.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// mergePlugins replaces same-named plugins in place and appends new ones,
// keeping first-seen order stable for logs and tests.
func mergePlugins(base, over []PluginConfig) []PluginConfig {
	for _, p := range over {
		p = p.copy()
		replaced := false
		for i := range base {
			if base[i].Name == p.Name {
				base[i], replaced = p, true
			}
		}
		if !replaced {
			base = append(base, p)
		}
	}
	return base
}

// mergeMap overlays over onto base per key, allocating only when needed.
func mergeMap(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	if base == nil {
		base = make(map[string]string, len(over))
	}
	maps.Copy(base, over)
	return base
}

// setNZ overwrites *dst when v is not the zero value ("set" for Merge).
func setNZ[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

func setSlice[T any](dst *[]T, v []T) {
	if len(v) > 0 {
		*dst = cloneSlice(v)
	}
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}
