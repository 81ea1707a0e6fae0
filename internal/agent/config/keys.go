package config

import (
	"sort"
	"strings"
)

// KeyState is what Drover does with one agent-config key.
type KeyState string

const (
	// Honoured keys are decoded and acted on; Key.Test names the test
	// that shows it.
	Honoured KeyState = "honoured"
	// Refused keys stop the agent with an error at the key's
	// file:line:col saying Drover does not support it.
	Refused KeyState = "refused"
	// Warned keys are accepted with a logged warning naming them: only
	// keys that cannot change where or how anything runs.
	Warned KeyState = "warned"
)

// Key is one agent-config key and its state. Path is the dotted key path
// with block labels left out (client.host_volume.path for
// client { host_volume "x" { path } }). A refused or warned block covers
// every key inside it: its keys are not listed one by one.
type Key struct {
	Path  string
	State KeyState
	// Test proves an honoured key (a Go test function name in this
	// repository; TestKeys_HonouredKeysNameATest checks it exists).
	Test string
	// Why explains a refused or warned key (and, for an honoured one,
	// where Drover differs from Nomad on purpose).
	Why string
	// Drover marks keys Drover has and Nomad does not.
	Drover bool
	// Block says the key is a block (written `name { }`), not an
	// attribute.
	Block bool
}

// Why texts shared by many keys.
const (
	whyEnterprise  = "a Nomad Enterprise feature; Drover has no equivalent"
	whyMultiRegion = "Drover runs one region: there is no federation to replicate from"
	whyConsul      = "Drover does not talk to Consul"
	whyVault       = "Drover does not talk to Vault"
	whyCNI         = "Drover's bridge network is configured by cni_path, cni_config_dir and bridge_network_subnet only"
	whyRaftTuning  = "Drover keeps raft's own defaults for snapshots and trailing logs"
	whyCSI         = "Drover has no CSI volumes"
	whyDefaultGo   = "Go's TLS stack chooses the cipher order itself since Go 1.18; the setting has no effect in Nomad either"
	whyCirconus    = "Drover has no Circonus sink (statsd, dogstatsd and Prometheus are supported)"
	whyUI          = "Drover's web UI is served as built: its labels, links to Consul and Vault UIs, CLI hints and content security policy are not configurable (cosmetic: nothing runs differently)"
	whyExternal    = "Drover has no external plugins yet: only the built-in drivers, configured with plugin \"name\" { config { } }"
)

// keyTable is the one table of agent-config keys: every key Nomad
// documents for its agent configuration (general, server, client, acl,
// tls, telemetry, limits, autopilot, consul, vault, ui, audit, plugin,
// sentinel, reporting, keyring), and Drover's own. Keep it sorted by
// path within each group; TestKeys_SchemaKeysAreInTheTable and
// TestKeys_EveryNomadKeyLoadsOrIsRefusedOnce hold it to the decoder.
var keyTable = []Key{
	// General (top level).
	h("region", "TestLoadFullFile"),
	h("datacenter", "TestLoadFullFile"),
	h("name", "TestLoadFullFile"),
	h("data_dir", "TestLoadFullFile"),
	h("bind_addr", "TestLoadFullFile"),
	h("enable_debug", "TestAgentPprof_OnlyWithEnableDebug"),
	h("log_level", "TestAgentLogging_ReloadChangesTheLevel"),
	h("log_json", "TestAgentLogging_JSONToFileWithRotation"),
	h("log_file", "TestAgentLogging_JSONToFileWithRotation"),
	h("log_rotate_bytes", "TestAgentLogging_JSONToFileWithRotation"),
	h("log_rotate_duration", "TestLogFile_RotatesByDuration"),
	h("log_rotate_max_files", "TestAgentLogging_JSONToFileWithRotation"),
	h("log_include_location", "TestAgentLogging_JSONToFileWithRotation"),
	h("enable_syslog", "TestAgentLogging_Syslog"),
	h("syslog_facility", "TestAgentLogging_Syslog"),
	h("leave_on_interrupt", "TestLeaveOnSignal"),
	h("leave_on_terminate", "TestLeaveOnSignal"),
	r("plugin_dir", whyExternal),
	w("disable_update_check", "Drover never checks for updates"),
	w("disable_anonymous_signature", "Drover never checks for updates, so it sends no signature"),
	h("http_api_response_headers", "TestAgent_UIEnabledAndResponseHeaders"),
	rb("keyring", "Drover keeps its root keys in raft, encrypted with no external KMS"),
	rb("audit", whyEnterprise),
	rb("sentinel", whyEnterprise),
	rb("reporting", whyEnterprise),
	rb("vault", whyVault),
	wb("consul", "Drover talks to no Consul agent: it neither joins servers through Consul (use server_join) nor registers the agent or services there; the block configures nothing Drover does (job services naming the consul provider are judged at job register)"),

	hb("ports", "TestLoadFullFile"),
	h("ports.http", "TestLoadFullFile"),
	h("ports.rpc", "TestLoadFullFile"),
	h("ports.serf", "TestLoadFullFile"),
	hb("addresses", "TestLoadFullFile"),
	h("addresses.http", "TestLoadFullFile"),
	h("addresses.rpc", "TestLoadFullFile"),
	h("addresses.serf", "TestLoadFullFile"),
	hb("advertise", "TestAdvertise_HTTPAddr"),
	h("advertise.http", "TestAdvertise_HTTPAddr"),
	h("advertise.rpc", "TestLoadFullFile"),
	h("advertise.serf", "TestServerConfig_FromAgentConfig"),

	hb("limits", "TestLimits_RPCConnectionCapFromAgentConfig"),
	h("limits.http_max_conns_per_client", "TestHTTP_ConnectionCapPerClient"),
	h("limits.rpc_max_conns_per_client", "TestLimits_RPCConnectionCapFromAgentConfig"),
	h("limits.https_handshake_timeout", "TestLimits_HTTPSHandshakeDeadlineEndsWithTheHandshake"),
	h("limits.rpc_handshake_timeout", "TestLimits_HandshakeTimeoutsCloseSilentConnections"),

	// acl { }
	hb("acl", "TestLoadACLBlockAndNodeCredential"),
	h("acl.enabled", "TestACLHTTP_BootstrapPoliciesTokens"),
	h("acl.token_ttl", "TestLoadACLBlockAndNodeCredential"),
	h("acl.policy_ttl", "TestLoadACLBlockAndNodeCredential"),
	r("acl.role_ttl", "Drover resolves a token's roles with the token: there is no separate role cache to size"),
	r("acl.token_min_expiration_ttl", "Drover does not bound token expiration times"),
	r("acl.token_max_expiration_ttl", "Drover does not bound token expiration times"),
	w("acl.replication_token", whyMultiRegion),

	// tls { }
	hb("tls", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.http", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.rpc", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.ca_file", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.cert_file", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.key_file", "TestTLS_HTTPSAndMutualTLSRPC"),
	h("tls.verify_server_hostname", "TestLoadTLSBlock"),
	h("tls.verify_https_client", "TestTLS_HTTPSAndMutualTLSRPC"),
	r("tls.rpc_upgrade_mode", "Drover's RPC port speaks TLS only or plaintext only: there is no mixed mode to upgrade through"),
	hn("tls.tls_cipher_suites", "TestTLS_MinVersionAndCipherSuites", "Go's names of its secure suites; TLS 1.3's suites are not configurable in Go"),
	h("tls.tls_min_version", "TestTLS_MinVersionAndCipherSuites"),
	w("tls.tls_prefer_server_cipher_suites", whyDefaultGo),

	// telemetry { }
	hb("telemetry", "TestTelemetry_StatsdSinkSendsMetricLines"),
	h("telemetry.collection_interval", "TestTelemetry_StatsdSinkSendsMetricLines"),
	h("telemetry.disable_hostname", "TestTelemetry_StatsdSinkSendsMetricLines"),
	h("telemetry.use_node_name", "TestTelemetry_HostnamePrefix"),
	h("telemetry.enable_hostname_label", "TestTelemetry_HostnamePrefix"),
	h("telemetry.statsd_address", "TestTelemetry_StatsdSinkSendsMetricLines"),
	h("telemetry.statsite_address", "TestTelemetry_StatsiteSinkSendsMetricLines"),
	h("telemetry.dogstatsd_address", "TestTelemetry_DogStatsdSinkSendsTags"),
	h("telemetry.dogstatsd_tags", "TestTelemetry_DogStatsdSinkSendsTags"),
	h("telemetry.prometheus_metrics", "TestMetricsHTTP_PrometheusNeedsPrometheusMetrics"),
	h("telemetry.publish_allocation_metrics", "TestMetricsHTTP_PublishFlagsGateClientMetrics"),
	h("telemetry.publish_node_metrics", "TestMetricsHTTP_PublishFlagsGateClientMetrics"),
	h("telemetry.filter_default", "TestTelemetry_PrefixFilter"),
	h("telemetry.prefix_filter", "TestTelemetry_PrefixFilter"),
	h("telemetry.disable_dispatched_job_summary_metrics", "TestMetricsHTTP_DispatchedJobSummariesCanBeLeftOut"),
	h("telemetry.in_memory_collection_interval", "TestTelemetry_IntervalWindowSummaries"),
	h("telemetry.in_memory_retention_period", "TestTelemetry_IntervalWindowSummaries"),
	r("telemetry.disable_rpc_rate_metrics_labels", "Drover has no RPC rate limiting, hence no rate metrics to label"),
	r("telemetry.disable_allocation_hook_metrics", "Drover publishes no allocation hook timings"),
	r("telemetry.disable_quota_utilization_metrics", whyEnterprise),
	r("telemetry.circonus_api_token", whyCirconus),
	r("telemetry.circonus_api_app", whyCirconus),
	r("telemetry.circonus_api_url", whyCirconus),
	r("telemetry.circonus_submission_interval", whyCirconus),
	r("telemetry.circonus_submission_url", whyCirconus),
	r("telemetry.circonus_check_id", whyCirconus),
	r("telemetry.circonus_check_force_metric_activation", whyCirconus),
	r("telemetry.circonus_check_instance_id", whyCirconus),
	r("telemetry.circonus_check_search_tag", whyCirconus),
	r("telemetry.circonus_check_display_name", whyCirconus),
	r("telemetry.circonus_check_tags", whyCirconus),
	r("telemetry.circonus_broker_id", whyCirconus),
	r("telemetry.circonus_broker_select_tag", whyCirconus),

	// autopilot { }
	hb("autopilot", "TestServerConfig_FromAgentConfig"),
	h("autopilot.cleanup_dead_servers", "TestServerConfig_FromAgentConfig"),
	h("autopilot.last_contact_threshold", "TestServerConfig_FromAgentConfig"),
	h("autopilot.max_trailing_logs", "TestServerConfig_FromAgentConfig"),
	h("autopilot.min_quorum", "TestServerConfig_FromAgentConfig"),
	h("autopilot.server_stabilization_time", "TestServerConfig_FromAgentConfig"),
	hn("autopilot.enable_redundancy_zones", "TestValidate", "Nomad Enterprise: only false is accepted"),
	hn("autopilot.disable_upgrade_migration", "TestValidate", "Nomad Enterprise: only false is accepted"),
	hn("autopilot.enable_custom_upgrades", "TestValidate", "Nomad Enterprise: only false is accepted"),

	// ui { }: cosmetic, except enabled.
	hb("ui", "TestAgent_UIEnabledAndResponseHeaders"),
	h("ui.enabled", "TestAgent_UIEnabledAndResponseHeaders"),
	wb("ui.content_security_policy", whyUI),
	wb("ui.consul", whyUI),
	wb("ui.vault", whyUI),
	wb("ui.label", whyUI),
	w("ui.show_cli_hints", whyUI),

	// plugin "name" { }
	hb("plugin", "TestLoadFullFile"),
	r("plugin.args", "Drover's drivers are built in: there is no plugin binary to pass arguments to"),
	hb("plugin.config", "TestLoadFullFile"),

	// server { }
	hb("server", "TestLoadFullFile"),
	h("server.enabled", "TestLoadFullFile"),
	h("server.bootstrap_expect", "TestLoadFullFile"),
	h("server.num_schedulers", "TestLoadFullFile"),
	h("server.enabled_schedulers", "TestLoadFullFile"),
	h("server.event_buffer_size", "TestLoadFullFile"),
	h("server.heartbeat_grace", "TestServerConfig_FromAgentConfig"),
	h("server.min_heartbeat_ttl", "TestServerConfig_FromAgentConfig"),
	h("server.max_heartbeats_per_second", "TestServerConfig_FromAgentConfig"),
	h("server.eval_gc_threshold", "TestServerConfig_FromAgentConfig"),
	h("server.batch_eval_gc_threshold", "TestServerConfig_FromAgentConfig"),
	h("server.job_gc_threshold", "TestServerConfig_FromAgentConfig"),
	h("server.job_gc_interval", "TestServerConfig_FromAgentConfig"),
	h("server.raft_multiplier", "TestServerConfig_FromAgentConfig"),
	h("server.encrypt", "TestGossipEncryption_DifferentKeyCannotJoin"),
	hb("server.default_scheduler_config", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.scheduler_algorithm", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.memory_oversubscription_enabled", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.reject_job_registration", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.pause_eval_broker", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	hb("server.default_scheduler_config.preemption_config", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.preemption_config.batch_scheduler_enabled", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.preemption_config.system_scheduler_enabled", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.preemption_config.sysbatch_scheduler_enabled", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	h("server.default_scheduler_config.preemption_config.service_scheduler_enabled", "TestDefaultSchedulerConfig_SeedsTheClusterAtBootstrap"),
	hb("server.server_join", "TestLoadFullFile"),
	h("server.server_join.retry_join", "TestLoadFullFile"),
	h("server.server_join.retry_interval", "TestLoadFullFile"),
	h("server.server_join.retry_max", "TestLoadFullFile"),
	r("server.server_join.start_join", "use retry_join: Drover joins only through it"),
	hb("server.raft_logstore", "TestLoadFullFile"),
	h("server.raft_logstore.backend", "TestLoadFullFile"),
	r("server.raft_logstore.boltdb", whyRaftTuning),
	r("server.raft_logstore.wal", whyRaftTuning),
	h("server.job_max_count", "TestLoad_LimitsAndJobMaxCount"),
	hd("server.node_registration_token", "TestNodeRegistration_ServerAndClientAgentWithACLsRegistersItsOwnNode"),
	h("server.node_gc_threshold", "TestGC_NodeGCDeregistersNodesDownPastThreshold"),
	r("server.deployment_gc_threshold", "Drover does not garbage-collect deployments yet"),
	r("server.csi_volume_claim_gc_interval", whyCSI),
	r("server.csi_volume_claim_gc_threshold", whyCSI),
	r("server.csi_plugin_gc_threshold", whyCSI),
	r("server.acl_token_gc_threshold", "Drover deletes expired tokens at every core GC"),
	r("server.root_key_gc_interval", "Drover does not rotate or collect root keys on a schedule"),
	r("server.root_key_gc_threshold", "Drover does not rotate or collect root keys on a schedule"),
	r("server.root_key_rotation_threshold", "Drover does not rotate or collect root keys on a schedule"),
	r("server.authoritative_region", whyMultiRegion),
	r("server.data_dir", "Drover keeps server data under the agent's data_dir"),
	r("server.deployment_query_rate_limit", "Drover's deployment watcher does not rate-limit its queries"),
	hn("server.enable_event_broker", "TestValidate", "the event stream is always on: only true is accepted"),
	r("server.failover_heartbeat_ttl", "Drover gives nodes their TTL again after a leader change as it does at first registration"),
	r("server.job_default_priority", "Drover's default job priority is fixed at 50"),
	r("server.job_max_priority", "Drover's maximum job priority is fixed at 100"),
	r("server.job_max_source_size", "Drover does not store job sources"),
	r("server.job_tracked_versions", "Drover keeps a fixed number of job versions"),
	r("server.license_path", whyEnterprise),
	r("server.non_voting_server", whyEnterprise),
	r("server.redundancy_zone", whyEnterprise),
	r("server.upgrade_version", whyEnterprise),
	hd("server.oidc_issuer", "TestOIDCDiscovery_VerifiesNamedIdentity"),
	rb("server.plan_rejection_tracker", "Drover does not mark nodes ineligible after repeated plan rejections"),
	rb("server.raft_boltdb", whyRaftTuning),
	hn("server.raft_protocol", "TestValidate", "Drover speaks raft protocol 3: only 3 is accepted"),
	r("server.raft_snapshot_interval", whyRaftTuning),
	r("server.raft_snapshot_threshold", whyRaftTuning),
	r("server.raft_trailing_logs", whyRaftTuning),
	r("server.rejoin_after_leave", "a Drover server that left rejoins through retry_join"),
	hn("server.retry_join", "TestLoad_HCL1Forms", "Nomad's older spelling of server_join.retry_join"),
	hn("server.retry_interval", "TestLoad_HCL1Forms", "Nomad's older spelling of server_join.retry_interval"),
	hn("server.retry_max", "TestLoad_HCL1Forms", "Nomad's older spelling of server_join.retry_max"),
	r("server.start_join", "write retry_join inside server_join { }"),
	rb("server.search", "Drover's search has fixed limits and no fuzzy-search settings"),
	rb("server.client_introduction", "Drover's node credential is server.node_registration_token"),

	// client { }
	hb("client", "TestLoadFullFile"),
	h("client.enabled", "TestLoadFullFile"),
	h("client.servers", "TestLoadFullFile"),
	h("client.node_class", "TestLoadFullFile"),
	h("client.node_pool", "TestLoadFullFile"),
	h("client.meta", "TestLoad_HCL1Forms"),
	h("client.options", "TestLoad_HCL1Forms"),
	h("client.state_dir", "TestLoadFullFile"),
	h("client.alloc_dir", "TestLoadFullFile"),
	h("client.network_interface", "TestLoadFullFile"),
	h("client.cpu_total_compute", "TestClientConfig_FromAgentConfig"),
	h("client.memory_total_mb", "TestClientConfig_FromAgentConfig"),
	h("client.min_dynamic_port", "TestClientConfig_FromAgentConfig"),
	h("client.max_dynamic_port", "TestClientConfig_FromAgentConfig"),
	h("client.max_kill_timeout", "TestClientConfig_FromAgentConfig"),
	h("client.gc_interval", "TestClientConfig_FromAgentConfig"),
	h("client.gc_max_allocs", "TestClientConfig_FromAgentConfig"),
	h("client.gc_disk_usage_threshold", "TestClientConfig_FromAgentConfig"),
	h("client.gc_inode_usage_threshold", "TestClientConfig_FromAgentConfig"),
	h("client.gc_parallel_destroys", "TestClientConfig_FromAgentConfig"),
	hd("client.node_registration_token", "TestNodeRegistration_ServerAndClientAgentWithACLsRegistersItsOwnNode"),
	hb("client.reserved", "TestClientConfig_FromAgentConfig"),
	h("client.reserved.cpu", "TestClientConfig_FromAgentConfig"),
	h("client.reserved.memory", "TestClientConfig_FromAgentConfig"),
	h("client.reserved.disk", "TestClientConfig_FromAgentConfig"),
	h("client.reserved.reserved_ports", "TestClientConfig_FromAgentConfig"),
	r("client.reserved.cores", "Drover does not reserve whole cores"),
	hb("client.host_volume", "TestLoadFullFile"),
	h("client.host_volume.path", "TestLoadFullFile"),
	h("client.host_volume.read_only", "TestLoadFullFile"),
	hb("client.host_network", "TestClientConfig_FromAgentConfig"),
	h("client.host_network.cidr", "TestClientConfig_FromAgentConfig"),
	h("client.host_network.interface", "TestClientConfig_FromAgentConfig"),
	h("client.host_network.reserved_ports", "TestClientConfig_FromAgentConfig"),
	r("client.alloc_mounts_dir", "Drover's exec driver mounts nothing outside the alloc dir"),
	r("client.chroot_env", "Drover's exec driver builds its own chroot"),
	hn("client.cpu_disable_dmidecode", "TestValidate", "Drover reads the CPU from /proc/cpuinfo only: only true is accepted"),
	h("client.disable_remote_exec", "TestClientExec_DisableRemoteExec"),
	rb("client.drain_on_shutdown", "a Drover client does not drain itself when it shuts down"),
	r("client.disk_total_mb", "Drover fingerprints the disk itself"),
	r("client.disk_free_mb", "Drover fingerprints the disk itself"),
	r("client.network_speed", "Drover does not schedule network bandwidth"),
	r("client.preferred_address_family", "Drover fingerprints the interface's first address"),
	r("client.node_max_allocs", "Drover does not cap allocations per node"),
	hn("client.no_host_uuid", "TestValidate", "Drover's node ID is kept in the data dir, never taken from the host: only true is accepted"),
	r("client.cgroup_parent", "Drover's exec driver uses its own cgroup parent"),
	r("client.gc_volumes_on_node_gc", whyCSI),
	h("client.cni_path", "TestBridge_TwoAllocsGetTheirOwnAddressAndTeardownLeavesNothing"),
	hn("client.cni_config_dir", "TestFeasibility_NetworkModeNeedsItsCNIPlugins", "the client fingerprints the cni/NAME networks it holds"),
	r("client.bridge_network_name", whyCNI),
	h("client.bridge_network_subnet", "TestBridge_TwoAllocsGetTheirOwnAddressAndTeardownLeavesNothing"),
	r("client.bridge_network_subnet_ipv6", whyCNI),
	r("client.bridge_network_hairpin_mode", whyCNI),
	r("client.bind_wildcard_default_host_network", "Drover binds task ports on the node's address"),
	r("client.nomad_service_discovery", "Drover's native service discovery is always on"),
	r("client.host_volumes_dir", "Drover has no dynamic host volumes"),
	r("client.host_volume_plugin_dir", "Drover has no dynamic host volumes"),
	r("client.common_plugin_dir", whyExternal),
	hb("client.server_join", "TestLoad_ClientServerJoin"),
	hn("client.server_join.retry_join", "TestLoad_ClientServerJoin", "added to client.servers; cloud auto-join (provider=...) is refused"),
	r("client.server_join.retry_interval", "a Drover client keeps retrying its servers on its own schedule"),
	r("client.server_join.retry_max", "a Drover client keeps retrying its servers until it reaches one"),
	r("client.server_join.start_join", "use retry_join"),
	rb("client.artifact", "Drover's artifact fetching has fixed limits"),
	rb("client.template", "Drover's template renderer has a fixed function set and no Consul or Vault lookups"),
	rb("client.users", "Drover does not allocate dynamic workload users"),
}

func h(path, test string) Key  { return Key{Path: path, State: Honoured, Test: test} }
func hb(path, test string) Key { return Key{Path: path, State: Honoured, Test: test, Block: true} }
func hn(path, test, note string) Key {
	return Key{Path: path, State: Honoured, Test: test, Why: note}
}
func hd(path, test string) Key { return Key{Path: path, State: Honoured, Test: test, Drover: true} }
func r(path, why string) Key   { return Key{Path: path, State: Refused, Why: why} }
func rb(path, why string) Key  { return Key{Path: path, State: Refused, Why: why, Block: true} }
func w(path, why string) Key   { return Key{Path: path, State: Warned, Why: why} }
func wb(path, why string) Key  { return Key{Path: path, State: Warned, Why: why, Block: true} }

var keyIndex = func() map[string]Key {
	m := make(map[string]Key, len(keyTable))
	for _, k := range keyTable {
		m[k.Path] = k
	}
	return m
}()

// Keys returns the table of agent-config keys, sorted by path.
func Keys() []Key {
	out := append([]Key(nil), keyTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// LookupKey returns the table's entry for a dotted key path.
func LookupKey(path string) (Key, bool) {
	k, ok := keyIndex[path]
	return k, ok
}

// siblings are the keys of the table directly under a block path (""
// for the top level), for "did you mean" suggestions.
func siblings(parent string) []string {
	var out []string
	for _, k := range keyTable {
		p, name := splitPath(k.Path)
		if p == parent {
			out = append(out, name)
		}
	}
	return out
}

func splitPath(path string) (parent, name string) {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}
