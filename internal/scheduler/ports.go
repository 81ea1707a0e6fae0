package scheduler

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/drover-project/drover/internal/structs"
)

// Default dynamic port range, used when the node does not set its own.
const (
	DefaultMinDynamicPort = 20000
	DefaultMaxDynamicPort = 32000
)

// randomPortTries is how many random picks are tried before falling back
// to a scan, which keeps the common case O(1) and the full case correct.
const randomPortTries = 20

// networkOffer is the networks and ports granted to one placement.
type networkOffer struct {
	shared []*structs.NetworkResource
	ports  []structs.AllocatedPortMapping
	tasks  map[string][]*structs.NetworkResource
}

// needsPorts reports whether the group asks for any network.
func needsPorts(tg *structs.TaskGroup) bool {
	if len(tg.Networks) > 0 {
		return true
	}
	for _, t := range tg.Tasks {
		if t.Resources != nil && len(t.Resources.Networks) > 0 {
			return true
		}
	}
	return false
}

// assignPorts grants the group's and tasks' networks on a node: reserved
// (static) ports must be free, dynamic ones are picked from the node's
// range, each on the address of its host network (the node's own for the
// default one), so one port number may be granted once per address. On
// failure it returns the exhausted dimension, e.g.
// "network: reserved port collision http=80".
func assignPorts(u *nodeUsage, tg *structs.TaskGroup, rng *rand.Rand) (*networkOffer, string) {
	a := &portAssigner{u: u, rng: rng, taken: map[addrPort]bool{}, ip: u.ip}
	a.lo, a.hi = dynamicRange(u.node)
	offer := &networkOffer{}
	for _, n := range tg.Networks {
		nr, ports, reason := a.assign(n, false)
		if reason != "" {
			return nil, reason
		}
		offer.shared = append(offer.shared, nr)
		offer.ports = append(offer.ports, ports...)
	}
	for _, t := range tg.Tasks {
		if t.Resources == nil {
			continue
		}
		for _, n := range t.Resources.Networks {
			nr, _, reason := a.assign(n, true)
			if reason != "" {
				return nil, reason
			}
			if offer.tasks == nil {
				offer.tasks = map[string][]*structs.NetworkResource{}
			}
			offer.tasks[t.Name] = append(offer.tasks[t.Name], nr)
		}
	}
	return offer, ""
}

func nodeIP(n *structs.Node) string {
	if n.NodeResources != nil {
		for _, nr := range n.NodeResources.Networks {
			if nr.IP != "" {
				return nr.IP
			}
		}
	}
	return ""
}

func dynamicRange(n *structs.Node) (int, int) {
	lo, hi := DefaultMinDynamicPort, DefaultMaxDynamicPort
	if r := n.NodeResources; r != nil && r.MinDynamicPort > 0 && r.MaxDynamicPort >= r.MinDynamicPort {
		lo, hi = r.MinDynamicPort, r.MaxDynamicPort
	}
	return lo, hi
}

type portAssigner struct {
	u      *nodeUsage
	rng    *rand.Rand
	taken  map[addrPort]bool // ports granted to this placement so far
	ip     string
	lo, hi int
}

// addrPort is one port number on one of the node's addresses.
type addrPort struct {
	ip   string
	port int
}

func (a *portAssigner) used(ip string, p int) bool {
	return a.taken[addrPort{ip, p}] || a.u.portUsed(ip, p)
}

// assign grants one network's ports and returns its port mappings. A task
// network (legacy, one IP for all its ports) needs all its ports on one
// address.
func (a *portAssigner) assign(ask *structs.NetworkResource, oneIP bool) (*structs.NetworkResource, []structs.AllocatedPortMapping, string) {
	nr := ask.Copy()
	if nr.IP == "" {
		nr.IP = a.ip
	}
	var out []structs.AllocatedPortMapping
	netIP, netSet := "", false
	grant := func(p structs.Port, ip string) string {
		a.taken[addrPort{ip, p.Value}] = true
		out = append(out, structs.AllocatedPortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: ip})
		if oneIP {
			if netSet && netIP != ip {
				return "network: ports of one task network on different host networks"
			}
			netIP, netSet = ip, true
		}
		return ""
	}
	for _, p := range nr.ReservedPorts {
		addrs := a.addrs(p.HostNetwork, nr.IP)
		if len(addrs) == 0 {
			return nil, nil, FilterHostNetwork + " " + p.HostNetwork
		}
		i := slices.IndexFunc(addrs, func(ip string) bool { return p.Value > 0 && !a.used(ip, p.Value) })
		if i < 0 {
			return nil, nil, "network: reserved port collision " + p.Label + "=" + strconv.Itoa(p.Value)
		}
		if reason := grant(p, addrs[i]); reason != "" {
			return nil, nil, reason
		}
	}
	for i := range nr.DynamicPorts {
		p := &nr.DynamicPorts[i]
		addrs := a.addrs(p.HostNetwork, nr.IP)
		if len(addrs) == 0 {
			return nil, nil, FilterHostNetwork + " " + p.HostNetwork
		}
		v, ok := a.pickDynamic(addrs[0])
		if !ok {
			return nil, nil, "network: dynamic port selection failed"
		}
		p.Value = v
		if reason := grant(*p, addrs[0]); reason != "" {
			return nil, nil, reason
		}
	}
	if netSet {
		nr.IP = netIP
	}
	return nr, out, ""
}

// addrs are the addresses a port may take: its host network's, or for the
// default one the network's IP.
func (a *portAssigner) addrs(hostNetwork, netIP string) []string {
	if isDefaultHostNetwork(hostNetwork) {
		if hn := a.u.node.HostNetworks[defaultHostNetwork]; hn == nil || len(hn.Addresses) == 0 {
			return []string{netIP}
		}
	}
	return hostNetworkAddrs(a.u.node, hostNetwork)
}

// pickDynamic picks a free port in the node's range: a few random tries,
// then a scan from a random start so a nearly full range still succeeds.
func (a *portAssigner) pickDynamic(ip string) (int, bool) {
	span := a.hi - a.lo + 1
	for i := 0; i < randomPortTries; i++ {
		if p := a.lo + a.rng.IntN(span); !a.used(ip, p) {
			return p, true
		}
	}
	start := a.rng.IntN(span)
	for i := 0; i < span; i++ {
		if p := a.lo + (start+i)%span; !a.used(ip, p) {
			return p, true
		}
	}
	return 0, false
}
