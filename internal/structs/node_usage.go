package structs

import (
	"cmp"
	"maps"
	"slices"
)

// NodeUsage sums what the live (non-terminal) allocs placed on one node
// use. The state store keeps one per node ID that has live allocs, updated
// in the same transaction as the alloc writes, so a scheduler ranking a
// node reads one value instead of the node's allocs. A stored NodeUsage is
// immutable: the store copies it before applying a change.
type NodeUsage struct {
	NodeID string
	// Allocs are the node's live allocs, sorted by ID: the same list, in
	// the same order, as the state's non-terminal half of the node's allocs.
	Allocs []*Allocation
	// Used sums the allocs' AllocatedResources.Comparable().
	Used ComparableResources
	// MemoryMaxMB sums the tasks' memory_max (0 when not oversubscribed).
	MemoryMaxMB int64
	// Cores counts the claims on each reserved core; Ports the allocs
	// claiming each host port on each address (an alloc counts an address
	// and port once; see AllocatedResources.ForEachHostAddrPort).
	Cores map[uint16]int
	Ports map[HostAddrPort]int
	// Devices counts the device instances the tasks claim (their
	// DeviceIDs), so a reader knows when no alloc holds any.
	Devices int
}

// HostAddrPort is a host port claimed on one of a node's addresses; an
// empty IP is the node's own address (an alloc whose port carries none).
type HostAddrPort struct {
	IP   string
	Port int
}

// NewNodeUsage computes the usage of nodeID from allocs: those on the node
// and not terminal count, kept in the order given (the store's are in ID
// order; an overlay's the order it lists them in). It is the reference the store's
// incremental summaries are tested against, and how readers that lay
// changes over the store (what-if overlays) compute one.
func NewNodeUsage(nodeID string, allocs []*Allocation) *NodeUsage {
	u := &NodeUsage{NodeID: nodeID}
	for _, a := range allocs {
		if a.NodeID == nodeID && !a.TerminalStatus() {
			u.Allocs = append(u.Allocs, a)
		}
	}
	for _, a := range u.Allocs {
		u.count(a, 1)
	}
	return u
}

// Empty reports whether no live alloc is counted.
func (u *NodeUsage) Empty() bool { return u == nil || len(u.Allocs) == 0 }

// Clone copies u so that the copy can be changed (Insert, Remove); the
// allocs themselves are shared. The copy has room for one more alloc, so
// the usual change (a placement) does not grow it again.
func (u *NodeUsage) Clone() *NodeUsage {
	c := *u
	c.Allocs = append(make([]*Allocation, 0, len(u.Allocs)+1), u.Allocs...)
	c.Cores = maps.Clone(u.Cores)
	c.Ports = maps.Clone(u.Ports)
	return &c
}

// Insert counts a live alloc, or replaces the counted alloc of the same
// ID. Only call it on a copy no reader sees yet.
func (u *NodeUsage) Insert(a *Allocation) {
	i, found := u.find(a.ID)
	if found {
		u.count(u.Allocs[i], -1)
		u.Allocs[i] = a
	} else {
		u.Allocs = slices.Insert(u.Allocs, i, a)
	}
	u.count(a, 1)
}

// Remove stops counting the alloc with this ID, if counted. Only call it on
// a copy no reader sees yet.
func (u *NodeUsage) Remove(id string) {
	i, found := u.find(id)
	if !found {
		return
	}
	u.count(u.Allocs[i], -1)
	u.Allocs = slices.Delete(u.Allocs, i, i+1)
}

func (u *NodeUsage) find(id string) (int, bool) {
	return slices.BinarySearchFunc(u.Allocs, id, func(a *Allocation, id string) int { return cmp.Compare(a.ID, id) })
}

// count adds (sign 1) or takes away (sign -1) what a uses.
func (u *NodeUsage) count(a *Allocation, sign int) {
	ar := a.AllocatedResources
	c := ar.Comparable()
	if sign < 0 {
		u.Used.Subtract(c)
	} else {
		u.Used.Add(c)
	}
	if ar == nil {
		return
	}
	for _, t := range ar.Tasks {
		u.MemoryMaxMB += int64(sign) * t.MemoryMaxMB
		for _, d := range t.Devices {
			if d != nil {
				u.Devices += sign * len(d.DeviceIDs)
			}
		}
	}
	ar.ForEachReservedCore(func(c uint16) { u.Cores = addCount(u.Cores, c, sign) })
	ar.ForEachHostAddrPort(func(ip string, p int) { u.Ports = addCount(u.Ports, HostAddrPort{ip, p}, sign) })
}

func addCount[K comparable](m map[K]int, k K, sign int) map[K]int {
	if m == nil {
		m = map[K]int{}
	}
	if m[k] += sign; m[k] <= 0 {
		delete(m, k)
	}
	return m
}

// ForEachReservedCore visits every reserved core of every task (a core
// claimed by two tasks is visited twice).
func (a *AllocatedResources) ForEachReservedCore(fn func(uint16)) {
	if a == nil {
		return
	}
	for _, t := range a.Tasks {
		for _, c := range t.ReservedCores {
			fn(c)
		}
	}
}

// ForEachHostPort visits every host port the alloc claims, once each: the
// group's port mappings and networks, and the tasks' networks.
func (a *AllocatedResources) ForEachHostPort(fn func(int)) {
	if a == nil {
		return
	}
	var seen map[int]bool
	visit := func(p int) {
		if p <= 0 || seen[p] {
			return
		}
		if seen == nil {
			seen = map[int]bool{}
		}
		seen[p] = true
		fn(p)
	}
	for _, p := range a.Shared.Ports {
		visit(p.Value)
	}
	visitHostPorts(a.Shared.Networks, visit)
	for _, t := range a.Tasks {
		visitHostPorts(t.Networks, visit)
	}
}

// ForEachHostAddrPort visits every host port the alloc claims with the
// address it claims it on, once per address and port: the group's port
// mappings (their HostIP, the address the scheduler picked on the port's
// host network), the group networks' ports on the default host network
// (the network's IP), and the tasks' networks (their IP). A group
// network's port on a named host network is visited through its mapping.
// The IP is empty where the alloc names none: the node's own address.
func (a *AllocatedResources) ForEachHostAddrPort(fn func(ip string, p int)) {
	if a == nil {
		return
	}
	var seen map[HostAddrPort]bool
	visit := func(ip string, p int) {
		k := HostAddrPort{ip, p}
		if p <= 0 || seen[k] {
			return
		}
		if seen == nil {
			seen = map[HostAddrPort]bool{}
		}
		seen[k] = true
		fn(ip, p)
	}
	for _, p := range a.Shared.Ports {
		visit(p.HostIP, p.Value)
	}
	for _, n := range a.Shared.Networks {
		for _, ports := range [][]Port{n.ReservedPorts, n.DynamicPorts} {
			for _, p := range ports {
				if IsDefaultHostNetwork(p.HostNetwork) {
					visit(n.IP, p.Value)
				}
			}
		}
	}
	for _, t := range a.Tasks {
		for _, n := range t.Networks {
			visitHostPorts([]*NetworkResource{n}, func(p int) { visit(n.IP, p) })
		}
	}
}

// DefaultHostNetwork is the host network a port without host_network is
// on, as in Nomad: the node's fingerprinted address unless the client
// declares a host_network of that name.
const DefaultHostNetwork = "default"

// IsDefaultHostNetwork reports whether a port's host_network is the
// default one.
func IsDefaultHostNetwork(name string) bool { return name == "" || name == DefaultHostNetwork }

func visitHostPorts(nets []*NetworkResource, visit func(int)) {
	for _, n := range nets {
		for _, p := range n.ReservedPorts {
			visit(p.Value)
		}
		for _, p := range n.DynamicPorts {
			visit(p.Value)
		}
	}
}
