package scheduler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// nodeUsage is what the proposed allocs of one node use: the stored ones
// the plan keeps plus the plan's placements. It is kept up to date as the
// plan grows, so fit checks cost O(1) instead of a state lookup.
type nodeUsage struct {
	node     *structs.Node
	capacity structs.ComparableResources
	used     structs.ComparableResources
	cores    map[uint16]bool // reserved cores in use
	ports    map[int]int     // port -> number of claims on the node's address (node-reserved ports count once)
	allocs   []*structs.Allocation
	// ip is the node's own address, the one u.ports counts; addrPorts
	// counts claims on its other addresses (host networks), by IP, made on
	// the first such claim.
	ip        string
	addrPorts map[string]map[int]int
	// reservedAt: per address, the ports a host network's reserved_ports
	// withhold (made on first use; nil map when none).
	reservedAt     map[string]map[int]bool
	reservedAtDone bool
}

func newNodeUsage(n *structs.Node) *nodeUsage {
	u := &nodeUsage{node: n, capacity: *n.Comparable(), ip: nodeIP(n)}
	if r := n.ReservedResources; r != nil {
		for _, p := range parsePortList(r.ReservedPorts) {
			u.claimPort(p)
		}
	}
	return u
}

// portUsed reports whether port p on address ip is taken: claimed there
// by an alloc, reserved by the node (client reserved_ports hold on every
// address, as in Nomad) or by the host network of that address.
func (u *nodeUsage) portUsed(ip string, p int) bool {
	if ip == "" || ip == u.ip {
		if u.ports[p] > 0 {
			return true
		}
	} else if u.addrPorts[ip][p] > 0 || u.nodeReserved(p) {
		return true
	}
	if len(u.node.HostNetworks) == 0 {
		return false
	}
	if !u.reservedAtDone {
		u.reservedAt, u.reservedAtDone = hostNetworkReserved(u.node), true
	}
	return u.reservedAt[ip][p]
}

// nodeReserved reports whether the client's reserved_ports hold p.
func (u *nodeUsage) nodeReserved(p int) bool {
	r := u.node.ReservedResources
	return r != nil && r.ReservedPorts != "" && slices.Contains(parsePortList(r.ReservedPorts), p)
}

// claimAddrPort counts a claim on port p at address ip.
func (u *nodeUsage) claimAddrPort(ip string, p int) {
	if ip == "" || ip == u.ip {
		u.claimPort(p)
		return
	}
	if u.addrPorts == nil {
		u.addrPorts = map[string]map[int]int{}
	}
	if u.addrPorts[ip] == nil {
		u.addrPorts[ip] = map[int]int{}
	}
	u.addrPorts[ip][p]++
}

func (u *nodeUsage) releaseAddrPort(ip string, p int) {
	m := u.ports
	if ip != "" && ip != u.ip {
		m = u.addrPorts[ip]
	}
	if m[p]--; m[p] <= 0 {
		delete(m, p)
	}
}

// parsePortList parses "22,80,8000-8100"; malformed parts are skipped.
func parsePortList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		from, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			continue
		}
		to := from
		if isRange {
			if to, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || to < from {
				continue
			}
		}
		for p := from; p <= to && p <= 65535; p++ {
			out = append(out, p)
		}
	}
	return out
}

func (u *nodeUsage) add(a *structs.Allocation) {
	u.allocs = append(u.allocs, a)
	u.used.Add(a.AllocatedResources.Comparable())
	forEachCore(a, func(c uint16) {
		if u.cores == nil {
			u.cores = map[uint16]bool{}
		}
		u.cores[c] = true
	})
	forEachAddrPort(a, u.ip, u.claimAddrPort)
}

// claimPort counts a claim on port p. The map is made on the first claim:
// most nodes a scheduler looks at have no ports claimed, and it reads a
// hundred or more nodes per eval.
func (u *nodeUsage) claimPort(p int) {
	if u.ports == nil {
		u.ports = map[int]int{}
	}
	u.ports[p]++
}

// remove takes the alloc with this ID out of the usage, if present.
func (u *nodeUsage) remove(id string) {
	for i, a := range u.allocs {
		if a.ID != id {
			continue
		}
		u.allocs = append(u.allocs[:i:i], u.allocs[i+1:]...)
		u.used.Subtract(a.AllocatedResources.Comparable())
		forEachCore(a, func(c uint16) { delete(u.cores, c) })
		forEachAddrPort(a, u.ip, u.releaseAddrPort)
		return
	}
}

// countGroup returns how many proposed allocs of the job (and, when group is
// not empty, of that group) the node holds.
func (u *nodeUsage) countGroup(jobID, group string) int {
	n := 0
	for _, a := range u.allocs {
		if a.JobID == jobID && (group == "" || a.TaskGroup == group) {
			n++
		}
	}
	return n
}

func forEachCore(a *structs.Allocation, fn func(uint16)) {
	if a.AllocatedResources == nil {
		return
	}
	for _, t := range a.AllocatedResources.Tasks {
		for _, c := range t.ReservedCores {
			fn(c)
		}
	}
}

// forEachAddrPort visits every host port an alloc claims with its address:
// the group's port mappings (HostIP) and the default-network ports of its
// networks, and the tasks' networks (their IP). A group network's port on
// a named host network is visited through its mapping, which carries the
// address the scheduler picked. An empty address is defaultIP.
func forEachAddrPort(a *structs.Allocation, defaultIP string, fn func(ip string, p int)) {
	ar := a.AllocatedResources
	if ar == nil {
		return
	}
	type key struct {
		ip string
		p  int
	}
	seen := map[key]bool{}
	visit := func(ip string, p int) {
		if ip == "" {
			ip = defaultIP
		}
		if k := (key{ip, p}); p > 0 && !seen[k] {
			seen[k] = true
			fn(ip, p)
		}
	}
	for _, p := range ar.Shared.Ports {
		visit(p.HostIP, p.Value)
	}
	for _, n := range ar.Shared.Networks {
		for _, ports := range [][]structs.Port{n.ReservedPorts, n.DynamicPorts} {
			for _, p := range ports {
				if isDefaultHostNetwork(p.HostNetwork) {
					visit(n.IP, p.Value)
				}
			}
		}
	}
	for _, t := range ar.Tasks {
		for _, n := range t.Networks {
			visitNetworks([]*structs.NetworkResource{n}, func(p int) { visit(n.IP, p) })
		}
	}
}

// forEachPort visits every host port number an alloc claims, on any of
// the node's addresses: the group's port mappings and networks, and the
// tasks' networks.
func forEachPort(a *structs.Allocation, fn func(int)) {
	ar := a.AllocatedResources
	if ar == nil {
		return
	}
	seen := map[int]bool{}
	visit := func(p int) {
		if p > 0 && !seen[p] {
			seen[p] = true
			fn(p)
		}
	}
	for _, p := range ar.Shared.Ports {
		visit(p.Value)
	}
	visitNetworks(ar.Shared.Networks, visit)
	for _, t := range ar.Tasks {
		visitNetworks(t.Networks, visit)
	}
}

func visitNetworks(nets []*structs.NetworkResource, visit func(int)) {
	for _, n := range nets {
		for _, p := range n.ReservedPorts {
			visit(p.Value)
		}
		for _, p := range n.DynamicPorts {
			visit(p.Value)
		}
	}
}
