package allocnet

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"

	"github.com/containernetworking/cni/libcni"

	"github.com/drover-project/drover/internal/structs"
)

// cniVersion is the spec version of the lists Drover generates; the
// reference plugins speak it since v1.0.0.
const cniVersion = "1.0.0"

// confList returns the network list a mode runs.
func (m *Manager) confList(req *Request) (*libcni.NetworkConfigList, error) {
	switch {
	case req.Mode == structs.NetworkModeBridge:
		b, err := bridgeConfList(m.cfg)
		if err != nil {
			return nil, err
		}
		return libcni.NetworkConfFromBytes(b)
	case req.Mode == structs.NetworkModeNone:
		b, _ := json.Marshal(map[string]any{"cniVersion": cniVersion, "name": "none", "plugins": []any{map[string]any{"type": "loopback"}}})
		return libcni.NetworkConfFromBytes(b)
	case strings.HasPrefix(req.Mode, structs.NetworkModeCNI):
		name := strings.TrimPrefix(req.Mode, structs.NetworkModeCNI)
		list, err := libcni.LoadNetworkConf(m.cfg.CNIConfigDir, name)
		if err != nil {
			return nil, fmt.Errorf("network mode %q: no CNI network %q in %s: %w", req.Mode, name, m.cfg.CNIConfigDir, err)
		}
		return list, nil
	}
	return nil, fmt.Errorf("network mode %q has no namespace of its own", req.Mode)
}

// bridgeConfList is bridge mode's network list: the loopback, the bridge
// with host-local addresses from the client's subnet (the bridge is the
// gateway and masquerades outgoing traffic), the firewall plugin letting
// the alloc's traffic through the FORWARD chain, and portmap for the
// group's ports.
func bridgeConfList(cfg Config) ([]byte, error) {
	if _, _, err := net.ParseCIDR(cfg.BridgeSubnet); err != nil {
		return nil, fmt.Errorf("bridge_network_subnet %q: %w", cfg.BridgeSubnet, err)
	}
	list := map[string]any{
		"cniVersion": cniVersion,
		"name":       cfg.NetworkName,
		"plugins": []any{
			map[string]any{"type": "loopback"},
			map[string]any{
				"type": "bridge", "bridge": cfg.BridgeName, "ipMasq": true, "isGateway": true,
				"forceAddress": true, "hairpinMode": true,
				"ipam": map[string]any{
					"type":   "host-local",
					"ranges": [][]map[string]string{{{"subnet": cfg.BridgeSubnet}}},
					"routes": []map[string]string{{"dst": "0.0.0.0/0"}},
					// host-local's lease files: per bridge, under the
					// client's own state rather than /var/lib/cni.
					"dataDir": cfg.StateDir + "/ipam",
				},
			},
			map[string]any{"type": "firewall", "backend": "iptables", "iptablesAdminChainName": "NOMAD-ADMIN"},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}, "snat": true},
		},
	}
	return json.Marshal(list)
}

// PortsFor turns an alloc's granted ports into port mappings: each host
// port forwards, for TCP and UDP, to the port's `to` (or the same number)
// in the alloc's namespace.
func PortsFor(ports []structs.AllocatedPortMapping) []PortMap {
	var out []PortMap
	for _, p := range ports {
		if p.Value <= 0 {
			continue
		}
		to := p.To
		if to <= 0 {
			to = p.Value
		}
		for _, proto := range []string{"tcp", "udp"} {
			out = append(out, PortMap{HostPort: p.Value, ContainerPort: to, Protocol: proto, HostIP: hostIP(p.HostIP)})
		}
	}
	return out
}

// RequestFor builds the request of an alloc whose group network needs a
// namespace (ok false otherwise: host mode, or no network block).
func RequestFor(a *structs.Allocation, dir string) (*Request, bool) {
	tg := a.Group()
	if tg == nil || len(tg.Networks) == 0 || tg.Networks[0] == nil || !NeedsNamespace(tg.Networks[0].Mode) {
		return nil, false
	}
	n := tg.Networks[0]
	req := &Request{AllocID: a.ID, Mode: n.Mode, DNS: n.DNS.Copy(), Hostname: n.Hostname, Dir: dir}
	if n.CNI != nil {
		req.CNIArgs = n.CNI.Args
	}
	if a.AllocatedResources != nil {
		req.Ports = PortsFor(a.AllocatedResources.Shared.Ports)
	}
	return req, true
}
