package allocnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/containernetworking/cni/libcni"
	types100 "github.com/containernetworking/cni/pkg/types/100"

	"github.com/drover-project/drover/internal/structs"
)

// Defaults of the client's CNI settings (Nomad's).
const (
	DefaultCNIConfigDir = "/opt/cni/config"
	DefaultBridgeSubnet = "172.26.64.0/20"
	DefaultBridgeName   = "nomad"
	DefaultNetworkName  = "nomad"
	// IfName is the alloc's interface inside its namespace.
	IfName = "eth0"
)

// DefaultCNIPath is where the plugins are searched when the client sets no
// cni_path: Nomad's default, then where Debian's containernetworking-plugins
// package installs them.
var DefaultCNIPath = []string{"/opt/cni/bin", "/usr/lib/cni"}

// BridgePlugins are the reference plugins bridge mode runs.
var BridgePlugins = []string{"loopback", "bridge", "host-local", "firewall", "portmap"}

// Config is the client's CNI settings.
type Config struct {
	CNIPath      []string // plugin dirs; default DefaultCNIPath
	CNIConfigDir string   // network lists for cni/NAME; default DefaultCNIConfigDir
	BridgeSubnet string   // bridge mode's host-local range; default DefaultBridgeSubnet
	BridgeName   string   // default DefaultBridgeName (tests use their own)
	NetworkName  string   // bridge mode's CNI network name; default DefaultNetworkName
	// StateDir keeps one record per alloc network (required).
	StateDir string
	Logger   *slog.Logger
}

func (c Config) withDefaults() Config {
	if len(c.CNIPath) == 0 {
		c.CNIPath = DefaultCNIPath
	}
	if c.CNIConfigDir == "" {
		c.CNIConfigDir = DefaultCNIConfigDir
	}
	if c.BridgeSubnet == "" {
		c.BridgeSubnet = DefaultBridgeSubnet
	}
	if c.BridgeName == "" {
		c.BridgeName = DefaultBridgeName
	}
	if c.NetworkName == "" {
		c.NetworkName = DefaultNetworkName
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// PortMap is one port the portmap plugin forwards from the host.
type PortMap struct {
	HostPort      int    `json:"hostPort"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol"`
	HostIP        string `json:"hostIP,omitempty"`
}

// Request is what one alloc's network needs.
type Request struct {
	AllocID  string
	Mode     string // bridge, none, cni/NAME
	Ports    []PortMap
	CNIArgs  map[string]string
	DNS      *structs.DNSConfig
	Hostname string
	// Dir receives resolv.conf, hosts and hostname (the alloc dir).
	Dir string
}

// Status is an alloc's network as set up.
type Status struct {
	NetNSPath      string
	InterfaceName  string // "" in none mode
	Address        string
	AddressIPv6    string
	Hostname       string
	ResolvConfPath string // "" when the group sets no dns block
	HostsPath      string
	HostnamePath   string
	DNS            *structs.DNSConfig
}

// Manager sets up and tears down alloc networks.
type Manager struct {
	cfg Config
	cni *libcni.CNIConfig
	mu  sync.Mutex // one plugin run at a time: host-local and iptables are not ours to race
}

// New returns a manager; it touches nothing until Setup.
func New(cfg Config) *Manager {
	cfg = cfg.withDefaults()
	return &Manager{cfg: cfg, cni: libcni.NewCNIConfigWithCacheDir(cfg.CNIPath, filepath.Join(cfg.StateDir, "cache"), nil)}
}

// record is what Setup persisted for an alloc, so Teardown can send the
// plugins the same configuration the ADD had.
type record struct {
	AllocID  string
	NetNS    string
	ConfList json.RawMessage
	Args     [][2]string
	Ports    []PortMap
	Status   *Status
}

func (m *Manager) recordPath(allocID string) string {
	return filepath.Join(m.cfg.StateDir, allocID+".json")
}

// NeedsNamespace reports whether a mode gets a namespace of its own.
func NeedsNamespace(mode string) bool {
	return mode == structs.NetworkModeBridge || mode == structs.NetworkModeNone || strings.HasPrefix(mode, structs.NetworkModeCNI)
}

// Setup creates the alloc's namespace and runs the plugins in it. On a
// namespace set up earlier (a restarted client) it returns what was
// recorded then. A failure leaves nothing behind.
func (m *Manager) Setup(ctx context.Context, req *Request) (*Status, error) {
	if !validAllocID(req.AllocID) {
		return nil, fmt.Errorf("invalid alloc ID %q for a network namespace", req.AllocID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec, err := m.readRecord(req.AllocID); err == nil && rec.Status != nil && exists(rec.NetNS) {
		return rec.Status, nil
	}
	list, err := m.confList(req)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(m.cfg.StateDir, 0o700); err != nil {
		return nil, err
	}
	nsPath, err := createNetNS(req.AllocID)
	if err != nil {
		return nil, fmt.Errorf("create network namespace: %w", err)
	}
	rec := &record{AllocID: req.AllocID, NetNS: nsPath, ConfList: list.Bytes, Args: cniArgs(req), Ports: req.Ports}
	if err := m.writeRecord(rec); err != nil {
		_ = deleteNetNS(req.AllocID)
		return nil, err
	}
	st, err := m.add(ctx, rec, list, req)
	if err != nil {
		if terr := m.teardownLocked(context.WithoutCancel(ctx), req.AllocID); terr != nil {
			m.cfg.Logger.Warn("cleaning up a failed network setup", "alloc_id", req.AllocID, "error", terr)
		}
		return nil, err
	}
	rec.Status = st
	if err := m.writeRecord(rec); err != nil {
		_ = m.teardownLocked(context.WithoutCancel(ctx), req.AllocID)
		return nil, err
	}
	return st, nil
}

func (m *Manager) add(ctx context.Context, rec *record, list *libcni.NetworkConfigList, req *Request) (*Status, error) {
	res, err := m.cni.AddNetworkList(ctx, list, m.runtimeConf(rec))
	if err != nil {
		return nil, fmt.Errorf("CNI network %q: %w", list.Name, err)
	}
	st := &Status{NetNSPath: rec.NetNS, Hostname: req.Hostname, DNS: req.DNS.Copy()}
	if res != nil {
		r, err := types100.NewResultFromResult(res)
		if err != nil {
			return nil, fmt.Errorf("CNI network %q result: %w", list.Name, err)
		}
		addressOf(r, rec.NetNS, st)
	}
	if req.Mode != structs.NetworkModeNone && st.Address == "" && st.AddressIPv6 == "" {
		return nil, fmt.Errorf("CNI network %q gave the alloc no address", list.Name)
	}
	if err := writeFiles(req, st); err != nil {
		return nil, err
	}
	return st, nil
}

// addressOf finds the alloc's interface (the one in its namespace) and its
// first IPv4 and IPv6 addresses.
func addressOf(r *types100.Result, nsPath string, st *Status) {
	for _, ipc := range r.IPs {
		if ipc.Interface == nil || *ipc.Interface >= len(r.Interfaces) {
			continue
		}
		iface := r.Interfaces[*ipc.Interface]
		if iface.Sandbox != nsPath || iface.Name == "lo" {
			continue
		}
		st.InterfaceName = iface.Name
		if ipc.Address.IP.To4() != nil {
			if st.Address == "" {
				st.Address = ipc.Address.IP.String()
			}
		} else if st.AddressIPv6 == "" {
			st.AddressIPv6 = ipc.Address.IP.String()
		}
	}
}

func (m *Manager) runtimeConf(rec *record) *libcni.RuntimeConf {
	rt := &libcni.RuntimeConf{ContainerID: rec.AllocID, NetNS: rec.NetNS, IfName: IfName, Args: rec.Args}
	if len(rec.Ports) > 0 {
		rt.CapabilityArgs = map[string]any{"portMappings": rec.Ports}
	}
	return rt
}

// cniArgs are the CNI_ARGS: IgnoreUnknown (plugins refuse unknown keys
// otherwise), the alloc's ID, then the group's cni { args } in key order.
// CNI_ARGS cannot carry a ';' or '=' in a value; such args are left out.
func cniArgs(req *Request) [][2]string {
	out := [][2]string{{"IgnoreUnknown", "true"}, {"NOMAD_ALLOC_ID", req.AllocID}}
	keys := make([]string, 0, len(req.CNIArgs))
	for k := range req.CNIArgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := req.CNIArgs[k]; !strings.ContainsAny(k+v, ";=") {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// Teardown runs the plugins' DEL with what the ADD used and removes the
// namespace and the record. Tearing down twice, or an alloc that never had
// a network, is not an error.
func (m *Manager) Teardown(ctx context.Context, allocID string) error {
	if !validAllocID(allocID) {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.teardownLocked(ctx, allocID)
}

func (m *Manager) teardownLocked(ctx context.Context, allocID string) error {
	rec, err := m.readRecord(allocID)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var errs []error
	if err != nil {
		errs = append(errs, err)
	} else {
		list, lerr := libcni.NetworkConfFromBytes(rec.ConfList)
		if lerr == nil {
			rt := m.runtimeConf(rec)
			if !exists(rec.NetNS) {
				rt.NetNS = "" // the spec's DEL without a namespace: release what is on the host
			}
			lerr = m.cni.DelNetworkList(ctx, list, rt)
		}
		if lerr != nil {
			errs = append(errs, fmt.Errorf("CNI DEL: %w", lerr))
		}
	}
	if err := deleteNetNS(allocID); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove network namespace: %w", err))
	}
	if len(errs) == 0 {
		if err := os.Remove(m.recordPath(allocID)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Sweep tears down the network of every recorded alloc keep says no to:
// allocs a restarted client no longer runs.
func (m *Manager) Sweep(ctx context.Context, keep func(allocID string) bool) error {
	entries, err := os.ReadDir(m.cfg.StateDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || keep(id) {
			continue
		}
		if err := m.Teardown(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("alloc %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Recorded lists the allocs with a network set up.
func (m *Manager) Recorded() []string {
	entries, _ := os.ReadDir(m.cfg.StateDir)
	var out []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, id)
		}
	}
	return out
}

func (m *Manager) readRecord(allocID string) (*record, error) {
	b, err := os.ReadFile(m.recordPath(allocID))
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("network record of alloc %s: %w", allocID, err)
	}
	return &rec, nil
}

func (m *Manager) writeRecord(rec *record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp := m.recordPath(rec.AllocID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, m.recordPath(rec.AllocID))
}

// validAllocID keeps a name that becomes a path component to what an
// alloc ID looks like.
func validAllocID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}

// hostIP returns ip unless it is empty or unspecified (portmap then maps
// every host address).
func hostIP(ip string) string {
	if p := net.ParseIP(ip); p == nil || p.IsUnspecified() {
		return ""
	}
	return ip
}
