package scheduler

import (
	"maps"
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
	// counted is countGroup's last answer, valid while counted.ok: a node
	// is ranked again and again for one group, and counting walks every
	// alloc on it. Every change of allocs clears it.
	counted groupCount
}

type groupCount struct {
	ok           bool
	jobID, group string
	n            int
}

func newNodeUsage(n *structs.Node) *nodeUsage {
	u := &nodeUsage{}
	initNodeUsage(u, n)
	return u
}

// initNodeUsage sets a zero usage up for node n, nothing placed yet.
func initNodeUsage(u *nodeUsage, n *structs.Node) {
	*u = nodeUsage{node: n, capacity: nodeCapacity(n), ip: nodeIP(n)}
	if r := n.ReservedResources; r != nil {
		for _, p := range parsePortList(r.ReservedPorts) {
			u.claimPort(p)
		}
	}
}

// nodeCapacity is n.Comparable() (what the node offers, less what it
// reserves) without its allocation: the scheduler computes it for every
// node it ranks.
func nodeCapacity(n *structs.Node) structs.ComparableResources {
	var c structs.ComparableResources
	if r := n.NodeResources; r != nil {
		c.CpuShares = r.CPU.CpuShares
		c.Cores = int(r.CPU.TotalCpuCores)
		c.MemoryMB = r.MemoryMB
		c.DiskMB = r.DiskMB
	}
	if r := n.ReservedResources; r != nil {
		c.CpuShares -= r.CpuShares
		c.MemoryMB -= r.MemoryMB
		c.DiskMB -= r.DiskMB
	}
	return c
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

// addStored counts the node's stored live allocs from the store's summary,
// less those drop says the plan stops or replaces. The result is what
// adding each kept alloc would give, in the same order, without reading
// the allocs' resources (only the dropped ones are subtracted).
func (u *nodeUsage) addStored(s *structs.NodeUsage, drop func(*structs.Allocation) bool) {
	if s.Empty() {
		return
	}
	u.counted.ok = false
	var dropped []*structs.Allocation
	if drop != nil {
		for _, a := range s.Allocs {
			if drop(a) {
				dropped = append(dropped, a)
			}
		}
	}
	if len(dropped) == 0 {
		u.allocs = slices.Clip(s.Allocs) // shared: add and remove copy before changing it
	} else {
		for _, a := range s.Allocs {
			if !drop(a) {
				u.allocs = append(u.allocs, a)
			}
		}
	}
	u.used.Add(&s.Used)
	cores := s.Cores
	if len(dropped) > 0 && len(cores) > 0 {
		cores = maps.Clone(cores)
	}
	for k, n := range s.Ports {
		for range n {
			u.claimAddrPort(k.IP, k.Port)
		}
	}
	for _, a := range dropped {
		u.used.Subtract(a.AllocatedResources.Comparable())
		forEachCore(a, func(c uint16) { cores[c]-- })
		forEachAddrPort(a, u.ip, u.releaseAddrPort)
	}
	for c, n := range cores {
		if n > 0 {
			if u.cores == nil {
				u.cores = map[uint16]bool{}
			}
			u.cores[c] = true
		}
	}
}

func (u *nodeUsage) add(a *structs.Allocation) {
	u.allocs = append(u.allocs, a)
	u.counted.ok = false
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
		u.counted.ok = false
		u.used.Subtract(a.AllocatedResources.Comparable())
		forEachCore(a, func(c uint16) { delete(u.cores, c) })
		forEachAddrPort(a, u.ip, u.releaseAddrPort)
		return
	}
}

// countGroup returns how many proposed allocs of the job (and, when group is
// not empty, of that group) the node holds.
func (u *nodeUsage) countGroup(jobID, group string) int {
	if c := &u.counted; c.ok && c.jobID == jobID && c.group == group {
		return c.n
	}
	n := 0
	for _, a := range u.allocs {
		if a.JobID == jobID && (group == "" || a.TaskGroup == group) {
			n++
		}
	}
	u.counted = groupCount{ok: true, jobID: jobID, group: group, n: n}
	return n
}

// forEachCore and forEachPort are the definitions the state store's
// per-node usage (structs.NodeUsage) counts with, so the stored sums and
// the plan's own additions agree.
func forEachCore(a *structs.Allocation, fn func(uint16)) {
	a.AllocatedResources.ForEachReservedCore(fn)
}

// forEachAddrPort visits every host port an alloc claims with its address
// (structs.AllocatedResources.ForEachHostAddrPort, which the state store's
// summary counts with); an empty address is defaultIP.
func forEachAddrPort(a *structs.Allocation, defaultIP string, fn func(ip string, p int)) {
	a.AllocatedResources.ForEachHostAddrPort(func(ip string, p int) {
		if ip == "" {
			ip = defaultIP
		}
		fn(ip, p)
	})
}

// forEachPort visits every host port number an alloc claims, on any of
// the node's addresses, once each.
func forEachPort(a *structs.Allocation, fn func(int)) { a.AllocatedResources.ForEachHostPort(fn) }
