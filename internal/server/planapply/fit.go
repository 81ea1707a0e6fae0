package planapply

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// nodeReservedOwner marks ports the node itself holds back (sshd, agents);
// no alloc ID can equal it.
const nodeReservedOwner = "(node reserved)"

// usage accumulates what a node's resulting set of allocs claims. It reads
// the allocs in place (they are shared with the state store and with the
// plan) and copies nothing.
type usage struct {
	res       structs.ComparableResources
	ports     claims[hostPort] // host address and port -> claiming alloc ID
	cores     claims[uint16]   // reserved core -> claiming alloc ID
	devices   claims[string]   // device instance (vendor/type/name/id) -> claiming alloc ID
	reserved  []portRange      // the node's reserved ports
	collision *Rejection       // first port or core claimed twice
	ip        string           // the node's address: that of a port without a HostIP
}

// hostPort is one port on one of the node's addresses: ports on two host
// networks (port { host_network }) do not collide.
type hostPort struct {
	ip   string
	port int
}

// newUsage starts an empty usage for node, with the node's reserved ports.
func newUsage(node *structs.Node) *usage {
	u := &usage{}
	if r := node.NodeResources; r != nil {
		for _, n := range r.Networks {
			if n.IP != "" {
				u.ip = n.IP
				break
			}
		}
	}
	if r := node.ReservedResources; r != nil && r.ReservedPorts != "" {
		u.reserved = parsePortRanges(r.ReservedPorts)
	}
	return u
}

// add counts one non-terminal alloc.
func (u *usage) add(a *structs.Allocation) {
	ar := a.AllocatedResources
	if ar == nil {
		return
	}
	for _, t := range ar.Tasks {
		u.res.CpuShares += t.CpuShares
		u.res.MemoryMB += t.MemoryMB
		u.res.Cores += len(t.ReservedCores)
		for _, c := range t.ReservedCores {
			u.claimCore(c, a.ID)
		}
		for _, d := range t.Devices {
			for _, id := range d.DeviceIDs {
				u.claimDevice(d.Vendor+"/"+d.Type+"/"+d.Name+"/"+id, a.ID)
			}
		}
		u.claimNetworks(t.Networks, a.ID, true)
	}
	u.res.DiskMB += ar.Shared.DiskMB
	for _, p := range ar.Shared.Ports {
		u.claimPort(p.HostIP, p.Value, a.ID)
	}
	u.claimNetworks(ar.Shared.Networks, a.ID, false)
}

// claimNetworks claims the networks' ports on their IP. A group network's
// port on a named host network is claimed through its port mapping, which
// carries the address the scheduler picked; a task network has one IP.
func (u *usage) claimNetworks(nets []*structs.NetworkResource, owner string, task bool) {
	for _, n := range nets {
		for _, ports := range [][]structs.Port{n.ReservedPorts, n.DynamicPorts} {
			for _, p := range ports {
				if task || p.HostNetwork == "" || p.HostNetwork == "default" {
					u.claimPort(n.IP, p.Value, owner)
				}
			}
		}
	}
}

// claimPort records that owner binds port on the node's address ip (none:
// the node's own). One alloc may list the same port several times (group
// ports are mirrored in its networks), so only a claim by a different
// owner is a collision. The node's reserved ports hold on every address.
func (u *usage) claimPort(ip string, port int, owner string) {
	if port <= 0 || u.collision != nil {
		return
	}
	if ip == "" {
		ip = u.ip
	}
	k := hostPort{ip, port}
	prev, taken := u.ports.owner(k)
	if !taken && inRanges(u.reserved, port) {
		prev, taken = nodeReservedOwner, true
	}
	if taken && prev != owner {
		u.collide(DimensionPorts, fmt.Sprintf("port %d claimed by %s and %s", port, prev, owner))
		return
	}
	if !taken {
		u.ports.set(k, owner)
	}
}

// claimCore records that owner pins core; cores are exclusive.
func (u *usage) claimCore(core uint16, owner string) {
	if u.collision != nil {
		return
	}
	prev, taken := u.cores.owner(core)
	if taken && prev != owner {
		u.collide(DimensionCores, fmt.Sprintf("core %d claimed by %s and %s", core, prev, owner))
		return
	}
	if !taken {
		u.cores.set(core, owner)
	}
}

// claimDevice records that owner holds a device instance; instances are
// exclusive.
func (u *usage) claimDevice(key, owner string) {
	if u.collision != nil {
		return
	}
	prev, taken := u.devices.owner(key)
	if taken && prev != owner {
		u.collide(DimensionDevices, fmt.Sprintf("device %s claimed by %s and %s", key, prev, owner))
		return
	}
	if !taken {
		u.devices.set(key, owner)
	}
}

func (u *usage) collide(dim, detail string) {
	u.collision = &Rejection{Reason: ReasonExhausted, Dimension: dim, Detail: detail}
}

// verdict compares the total with what the node offers; nil means it fits.
func (u *usage) verdict(node *structs.Node) *Rejection {
	avail := node.Comparable()
	if ok, dim := avail.Superset(&u.res); !ok {
		return &Rejection{Reason: ReasonExhausted, Dimension: dim, Detail: exhaustedDetail(dim, avail, &u.res)}
	}
	return u.collision
}

func exhaustedDetail(dim string, avail, used *structs.ComparableResources) string {
	var have, want int64
	switch dim {
	case DimensionCPU:
		have, want = avail.CpuShares, used.CpuShares
	case DimensionCores:
		have, want = int64(avail.Cores), int64(used.Cores)
	case DimensionMemory:
		have, want = avail.MemoryMB, used.MemoryMB
	case DimensionDisk:
		have, want = avail.DiskMB, used.DiskMB
	}
	return fmt.Sprintf("%s: %d needed, %d available", dim, want, have)
}

// portRange is an inclusive range of ports.
type portRange struct{ lo, hi int }

// parsePortRanges parses a node's reserved ports ("22,80,8000-8100").
// Malformed parts are skipped: node registration validates the string,
// and the applier must not fail a plan over a cosmetic error.
func parsePortRanges(spec string) []portRange {
	var out []portRange
	for part := range strings.SplitSeq(spec, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		l, err1 := strconv.Atoi(strings.TrimSpace(lo))
		h, err2 := l, error(nil)
		if isRange {
			h, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 == nil && err2 == nil && l <= h {
			out = append(out, portRange{l, h})
		}
	}
	return out
}

func inRanges(rs []portRange, port int) bool {
	for _, r := range rs {
		if port >= r.lo && port <= r.hi {
			return true
		}
	}
	return false
}
