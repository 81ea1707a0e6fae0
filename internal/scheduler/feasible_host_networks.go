package scheduler

import (
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// FilterHostNetwork is the reason prefix of a node without a host network
// a port of the group names (port { host_network = "NAME" }); the name
// follows it, as in "missing host network public".
const FilterHostNetwork = "missing host network"

// defaultHostNetwork and isDefaultHostNetwork: see structs.DefaultHostNetwork.
const defaultHostNetwork = structs.DefaultHostNetwork

func isDefaultHostNetwork(name string) bool { return structs.IsDefaultHostNetwork(name) }

// hostNetworkNames lists, sorted, the non-default host networks the
// group's and its tasks' ports name.
func hostNetworkNames(tg *structs.TaskGroup) []string {
	var out []string
	visit := func(nets []*structs.NetworkResource) {
		for _, n := range nets {
			for _, ports := range [][]structs.Port{n.ReservedPorts, n.DynamicPorts} {
				for _, p := range ports {
					if !isDefaultHostNetwork(p.HostNetwork) && !slices.Contains(out, p.HostNetwork) {
						out = append(out, p.HostNetwork)
					}
				}
			}
		}
	}
	visit(tg.Networks)
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			visit(t.Resources.Networks)
		}
	}
	slices.Sort(out)
	return out
}

// hostNetworkAddrs are the node's addresses for a port's host network:
// the client's fingerprint of a declared host_network, or, for the default
// one the client does not declare, the node's own address.
func hostNetworkAddrs(n *structs.Node, name string) []string {
	if isDefaultHostNetwork(name) {
		if hn := n.HostNetworks[defaultHostNetwork]; hn != nil && len(hn.Addresses) > 0 {
			return hn.Addresses
		}
		return []string{nodeIP(n)}
	}
	if hn := n.HostNetworks[name]; hn != nil {
		return hn.Addresses
	}
	return nil
}

// hostNetworkFilter keeps nodes offering an address on every named host
// network. It runs per node: host networks are not part of the computed
// class.
func hostNetworkFilter(names []string) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		for _, name := range names {
			if len(hostNetworkAddrs(n, name)) == 0 {
				return false, FilterHostNetwork + " " + name
			}
		}
		return true, ""
	})
}

// hostNetworkReserved is, per address of the node's host networks, the
// ports their reserved_ports withhold there.
func hostNetworkReserved(n *structs.Node) map[string]map[int]bool {
	var out map[string]map[int]bool
	for _, hn := range n.HostNetworks {
		if hn == nil || hn.ReservedPorts == "" {
			continue
		}
		ports := parsePortList(hn.ReservedPorts)
		for _, ip := range hn.Addresses {
			if out == nil {
				out = map[string]map[int]bool{}
			}
			if out[ip] == nil {
				out[ip] = map[int]bool{}
			}
			for _, p := range ports {
				out[ip][p] = true
			}
		}
	}
	return out
}
