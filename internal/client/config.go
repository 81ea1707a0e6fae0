package client

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"time"

	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/fingerprint"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Defaults for the Config's tuning fields.
const (
	DefaultFingerprintInterval = 30 * time.Second
	DefaultUpdateBatchInterval = 200 * time.Millisecond
	DefaultMaxQueryTime        = 5 * time.Minute
	DefaultHeartbeatTTL        = 10 * time.Second
)

// Config configures a client. The agent maps its client { } block and
// plugin blocks onto it (see the field comments).
type Config struct {
	DataDir  string // agent data_dir; the node ID lives in DataDir/client
	StateDir string // client.state_dir; default DataDir/client
	AllocDir string // client.alloc_dir; default DataDir/alloc
	// NodeID overrides the persisted node ID (tests, the simulator).
	NodeID     string
	Name       string // node name; default the hostname
	Datacenter string // agent datacenter; default dc1
	Region     string // agent region; default global (NOMAD_REGION, ${node.region})
	NodeClass  string
	NodePool   string // default "default"
	HTTPAddr   string // advertised HTTP address of this agent
	// HTTPTLS: the agent's HTTP API is served over TLS (Node.TLSEnabled).
	HTTPTLS bool
	// HTTPClientTLS is how this client dials another node's agent over
	// https (fetching a previous alloc's data for ephemeral_disk
	// migrate); nil: the system's roots.
	HTTPClientTLS *tls.Config
	// Version is the agent's version, fingerprinted as nomad.version (the
	// CLI's node list shows it).
	Version string
	Meta    map[string]string
	Options map[string]string
	// Plugins are the agent's plugin "NAME" { config { } } bodies.
	Plugins          map[string]map[string]any
	Reserved         structs.NodeReservedResources
	CPUTotalCompute  int
	MemoryTotalMB    int
	NetworkInterface string
	// CNIPath (client.cni_path) are the dirs searched for CNI plugins;
	// default /opt/cni/bin then /usr/lib/cni. CNIConfigDir
	// (client.cni_config_dir) holds the network lists of cni/NAME modes;
	// default /opt/cni/config. BridgeNetworkSubnet
	// (client.bridge_network_subnet) is bridge mode's address range;
	// default 172.26.64.0/20.
	CNIPath             []string
	CNIConfigDir        string
	BridgeNetworkSubnet string
	// Networks replaces the alloc networks (tests); default allocnet when
	// the client runs as root.
	Networks allocrunner.Networks
	// DevMode enables raw_exec and adds the mock driver.
	DevMode bool
	Logger  *slog.Logger
	Clock   clock.Clock
	// HostVolumes are the directories offered to jobs (host_volume blocks).
	HostVolumes map[string]*structs.ClientHostVolumeConfig
	// HostNetworks are the named host networks the node offers
	// (host_network blocks), registered as Node.HostNetworks.
	HostNetworks map[string]*structs.ClientHostNetworkConfig
	// MinDynamicPort and MaxDynamicPort bound the dynamic ports the
	// scheduler picks on this node (0: Nomad's 20000-32000).
	MinDynamicPort, MaxDynamicPort int
	// MaxKillTimeout caps every task's kill_timeout (0: no cap).
	MaxKillTimeout time.Duration
	// GC is when finished allocs are destroyed on their own (GCConfig).
	GC GCConfig

	Servers Servers
	// NodeRegistrationToken is the cluster's node credential (client {
	// node_registration_token }), presented when registering.
	NodeRegistrationToken string
	// AgentNodeCredential, set by an agent that runs a server too, is
	// that server's vouching for its in-process client (ok is false until
	// the server holds the keyring); the client presents it when
	// NodeRegistrationToken is empty.
	AgentNodeCredential func() (string, bool)
	// TaskAPI is the agent's HTTP API as tasks reach it on their
	// secrets/api.sock (Nomad's Task API); nil: no socket.
	TaskAPI http.Handler

	// Drivers replaces the built-in registry (tests: a mock driver on a
	// manual clock).
	Drivers *drivers.Registry
	// Fingerprint replaces machine fingerprinting (tests).
	Fingerprint func(cfg fingerprint.Config) (*fingerprint.Result, error)

	FingerprintInterval time.Duration // default 30s
	UpdateBatchInterval time.Duration // default 200ms
	MaxQueryTime        time.Duration // default 5m
	LogPollInterval     time.Duration // default logmon.DefaultPollInterval
}

func (c *Config) withDefaults() *Config {
	out := *c
	if out.Clock == nil {
		out.Clock = clock.Real{}
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	if out.StateDir == "" {
		out.StateDir = joinDir(out.DataDir, "client")
	}
	if out.AllocDir == "" {
		out.AllocDir = joinDir(out.DataDir, "alloc")
	}
	if out.Datacenter == "" {
		out.Datacenter = "dc1"
	}
	if out.Region == "" {
		out.Region = "global"
	}
	if out.NodePool == "" {
		out.NodePool = structs.DefaultNodePool
	}
	if out.FingerprintInterval <= 0 {
		out.FingerprintInterval = DefaultFingerprintInterval
	}
	if out.UpdateBatchInterval <= 0 {
		out.UpdateBatchInterval = DefaultUpdateBatchInterval
	}
	if out.MaxQueryTime <= 0 {
		out.MaxQueryTime = DefaultMaxQueryTime
	}
	return &out
}
