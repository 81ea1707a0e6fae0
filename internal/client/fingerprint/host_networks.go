package fingerprint

import (
	"net/netip"
	"slices"
)

// HostNetworkAddrs is the addresses a client host_network names among the
// fingerprinted interfaces: every address of the interface called iface,
// or, with a cidr, every address of any interface inside it. Link-local
// addresses are left out and IPv4 come first, so the scheduler's pick (the
// first with the port free) is the operator's usual one. Nomad fingerprints
// host networks the same way (NodeNetworks addresses with the network's
// name as alias).
func HostNetworkAddrs(ifaces []Interface, cidr, iface string) []string {
	var prefix netip.Prefix
	if cidr != "" {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return nil
		}
		prefix = p.Masked()
	}
	var v4, v6 []string
	for _, i := range ifaces {
		if cidr == "" && i.Name != iface {
			continue
		}
		for _, a := range i.Addrs {
			pfx, err := netip.ParsePrefix(a)
			if err != nil {
				continue
			}
			ip := pfx.Addr().Unmap()
			if ip.IsLinkLocalUnicast() || (cidr != "" && !prefix.Contains(ip)) {
				continue
			}
			if ip.Is4() {
				v4 = append(v4, ip.String())
			} else {
				v6 = append(v6, ip.String())
			}
		}
	}
	out := append(v4, v6...)
	return slices.Compact(out)
}
