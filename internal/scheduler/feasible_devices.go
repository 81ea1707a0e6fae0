package scheduler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// FilterDevice is the reason prefix of a node without a device group that
// can serve a device request (name, constraints, enough healthy
// instances); the request's name follows, as in "missing device
// nvidia/gpu".
const FilterDevice = "missing device"

// deviceAsk is one task's device request.
type deviceAsk struct {
	task string
	req  *structs.RequestedDevice
}

// deviceAsks lists the group's device requests in task order.
func deviceAsks(tg *structs.TaskGroup) []deviceAsk {
	var out []deviceAsk
	for _, t := range tg.Tasks {
		if t.Resources == nil {
			continue
		}
		for _, d := range t.Resources.Devices {
			if d != nil {
				out = append(out, deviceAsk{task: t.Name, req: d})
			}
		}
	}
	return out
}

// deviceCount is how many instances a request asks for (Nomad: 1 unset).
func deviceCount(d *structs.RequestedDevice) int {
	if d.Count == 0 {
		return 1
	}
	return int(d.Count)
}

// deviceNameMatches reports whether a node's device group answers a
// request's name: "type", "vendor/type" or "vendor/type/name".
func deviceNameMatches(d *structs.NodeDeviceResource, name string) bool {
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 1:
		return d.Type == parts[0]
	case 2:
		return d.Vendor == parts[0] && d.Type == parts[1]
	case 3:
		return d.Vendor == parts[0] && d.Type == parts[1] && d.Name == parts[2]
	}
	return false
}

// deviceTarget resolves a device constraint or affinity target: the
// ${device.*} variables against the device group, anything else against
// the node; literals are themselves.
func deviceTarget(target string, d *structs.NodeDeviceResource, n *structs.Node) (string, bool) {
	if !strings.HasPrefix(target, "${") || !strings.HasSuffix(target, "}") {
		return target, true
	}
	name := target[2 : len(target)-1]
	switch name {
	case "device.vendor":
		return d.Vendor, true
	case "device.type":
		return d.Type, true
	case "device.model":
		return d.Name, true
	}
	if k, ok := strings.CutPrefix(name, "device.attr."); ok {
		v, found := d.Attributes[k]
		return v, found
	}
	return resolveTarget(target, n)
}

// deviceGroupFits reports whether a node's device group answers a
// request: its name and every constraint.
func (c *evalContext) deviceGroupFits(d *structs.NodeDeviceResource, req *structs.RequestedDevice, n *structs.Node) bool {
	if !deviceNameMatches(d, req.Name) {
		return false
	}
	for _, con := range req.Constraints {
		l, lok := deviceTarget(con.LTarget, d, n)
		r, rok := deviceTarget(con.RTarget, d, n)
		l, r = normalizeUnits(l, r)
		if !c.checkOperator(con.Operand, l, lok, r, rok) {
			return false
		}
	}
	return true
}

func healthyInstances(d *structs.NodeDeviceResource) int {
	k := 0
	for _, inst := range d.Instances {
		if inst != nil && inst.Healthy {
			k++
		}
	}
	return k
}

func nodeDevices(n *structs.Node) []*structs.NodeDeviceResource {
	if n.NodeResources == nil {
		return nil
	}
	return n.NodeResources.Devices
}

// deviceFilter keeps nodes with, for every request, a device group that
// answers it with enough healthy instances (what other allocs use is the
// fit's concern). It runs per node: devices are not part of the computed
// class.
func deviceFilter(ctx *evalContext, asks []deviceAsk) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		for _, a := range asks {
			ok := slices.ContainsFunc(nodeDevices(n), func(d *structs.NodeDeviceResource) bool {
				return d != nil && ctx.deviceGroupFits(d, a.req, n) && healthyInstances(d) >= deviceCount(a.req)
			})
			if !ok {
				return false, FilterDevice + " " + a.req.Name
			}
		}
		return true, ""
	})
}

// deviceKey names one instance on a node.
func deviceKey(d *structs.NodeDeviceResource, id string) string { return d.ID() + "/" + id }

// forEachDevice visits the device instances an alloc holds.
func forEachDevice(a *structs.Allocation, fn func(key string)) {
	if a.AllocatedResources == nil {
		return
	}
	for _, t := range a.AllocatedResources.Tasks {
		for _, d := range t.Devices {
			if d == nil {
				continue
			}
			for _, id := range d.DeviceIDs {
				fn(d.Vendor + "/" + d.Type + "/" + d.Name + "/" + id)
			}
		}
	}
}

// usedDevices is the set of instances the node's proposed allocs hold.
func usedDevices(u *nodeUsage) map[string]bool {
	used := map[string]bool{}
	for _, a := range u.allocs {
		forEachDevice(a, func(k string) { used[k] = true })
	}
	return used
}

// assignDevices grants each request free healthy instances of one device
// group that answers it, preferring the group its affinities score best
// (then the most free instances, then the group's ID); no instance is
// granted twice. On failure it returns the exhausted dimension, e.g.
// "device nvidia/gpu: asked 2, free 1".
func (c *evalContext) assignDevices(u *nodeUsage, asks []deviceAsk) (map[string][]*structs.AllocatedDeviceResource, string) {
	used := usedDevices(u)
	out := map[string][]*structs.AllocatedDeviceResource{}
	for _, a := range asks {
		want := deviceCount(a.req)
		var best *structs.NodeDeviceResource
		var bestFree []string
		bestScore, mostFree := 0.0, 0
		for _, d := range nodeDevices(u.node) {
			if d == nil || !c.deviceGroupFits(d, a.req, u.node) {
				continue
			}
			var free []string
			for _, inst := range d.Instances {
				if inst != nil && inst.Healthy && !used[deviceKey(d, inst.ID)] {
					free = append(free, inst.ID)
				}
			}
			mostFree = max(mostFree, len(free))
			if len(free) < want {
				continue
			}
			score := c.deviceAffinity(d, a.req, u.node)
			if best == nil || score > bestScore || (score == bestScore && (len(free) > len(bestFree) || len(free) == len(bestFree) && d.ID() < best.ID())) {
				best, bestFree, bestScore = d, free, score
			}
		}
		if best == nil {
			return nil, fmt.Sprintf("device %s: asked %d, free %d", a.req.Name, want, mostFree)
		}
		ids := bestFree[:want]
		for _, id := range ids {
			used[deviceKey(best, id)] = true
		}
		out[a.task] = append(out[a.task], &structs.AllocatedDeviceResource{Vendor: best.Vendor, Type: best.Type, Name: best.Name, DeviceIDs: slices.Clone(ids)})
	}
	return out, ""
}

// deviceAffinity is the weighted share of a request's affinities a device
// group meets, in [-1, 1] as Nomad's affinity scores.
func (c *evalContext) deviceAffinity(d *structs.NodeDeviceResource, req *structs.RequestedDevice, n *structs.Node) float64 {
	total, sum := 0.0, 0.0
	for _, af := range req.Affinities {
		w := float64(af.Weight)
		if w < 0 {
			total -= w
		} else {
			total += w
		}
		l, lok := deviceTarget(af.LTarget, d, n)
		r, rok := deviceTarget(af.RTarget, d, n)
		l, r = normalizeUnits(l, r)
		if c.checkOperator(af.Operand, l, lok, r, rok) {
			sum += w
		}
	}
	if total == 0 {
		return 0
	}
	return sum / total
}

// deviceUnits scales the units device attributes carry (Nomad's
// psstructs units): bytes, bits per second, hertz and watts, each family
// to its base. "2 GiB" and "2048 MiB" compare equal.
var deviceUnits = map[string]struct {
	family string
	scale  float64
}{
	"B": {"B", 1}, "KB": {"B", 1e3}, "kB": {"B", 1e3}, "MB": {"B", 1e6}, "GB": {"B", 1e9}, "TB": {"B", 1e12},
	"KiB": {"B", 1 << 10}, "MiB": {"B", 1 << 20}, "GiB": {"B", 1 << 30}, "TiB": {"B", 1 << 40},
	"b/s": {"b/s", 1}, "Kb/s": {"b/s", 1e3}, "kb/s": {"b/s", 1e3}, "Mb/s": {"b/s", 1e6}, "Gb/s": {"b/s", 1e9},
	"Hz": {"Hz", 1}, "kHz": {"Hz", 1e3}, "KHz": {"Hz", 1e3}, "MHz": {"Hz", 1e6}, "GHz": {"Hz", 1e9},
	"W": {"W", 1}, "mW": {"W", 1e-3}, "kW": {"W", 1e3},
	"C": {"C", 1},
}

// unitValue parses "<number> <unit>" (the space optional).
func unitValue(s string) (float64, string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+') })
	if i <= 0 {
		return 0, "", false
	}
	u, ok := deviceUnits[strings.TrimSpace(s[i:])]
	if !ok {
		return 0, "", false
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", false
	}
	return v * u.scale, u.family, true
}

// normalizeUnits rewrites two values with units of one family as plain
// numbers in the base unit, so ordering operators compare them.
func normalizeUnits(l, r string) (string, string) {
	lv, lf, lok := unitValue(l)
	rv, rf, rok := unitValue(r)
	if !lok || !rok || lf != rf {
		return l, r
	}
	return strconv.FormatFloat(lv, 'f', -1, 64), strconv.FormatFloat(rv, 'f', -1, 64)
}
