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
	ports    map[int]int     // port -> number of claims (node-reserved ports count once)
	allocs   []*structs.Allocation
}

func newNodeUsage(n *structs.Node) *nodeUsage {
	u := &nodeUsage{node: n, capacity: *n.Comparable()}
	if r := n.ReservedResources; r != nil {
		for _, p := range parsePortList(r.ReservedPorts) {
			u.claimPort(p)
		}
	}
	return u
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
	for p, n := range s.Ports {
		if u.ports == nil {
			u.ports = make(map[int]int, len(s.Ports))
		}
		u.ports[p] += n
	}
	for _, a := range dropped {
		u.used.Subtract(a.AllocatedResources.Comparable())
		forEachCore(a, func(c uint16) { cores[c]-- })
		forEachPort(a, func(p int) {
			if u.ports[p]--; u.ports[p] <= 0 {
				delete(u.ports, p)
			}
		})
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
	u.used.Add(a.AllocatedResources.Comparable())
	forEachCore(a, func(c uint16) {
		if u.cores == nil {
			u.cores = map[uint16]bool{}
		}
		u.cores[c] = true
	})
	forEachPort(a, u.claimPort)
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
		forEachPort(a, func(p int) {
			if u.ports[p]--; u.ports[p] <= 0 {
				delete(u.ports, p)
			}
		})
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

// forEachCore and forEachPort are the definitions the state store's
// per-node usage (structs.NodeUsage) counts with, so the stored sums and
// the plan's own additions agree.
func forEachCore(a *structs.Allocation, fn func(uint16)) {
	a.AllocatedResources.ForEachReservedCore(fn)
}

func forEachPort(a *structs.Allocation, fn func(int)) { a.AllocatedResources.ForEachHostPort(fn) }
