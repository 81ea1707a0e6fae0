package scheduler

import (
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// uniquePrefix marks attributes and meta that differ on every node (IDs,
// hostnames, addresses). They are left out of the computed class, so that
// nodes that are otherwise alike share one, and constraints that read them
// cannot be answered per class.
const uniquePrefix = "unique."

// ComputeClass returns the node's computed class: a hash of everything a
// feasibility check may read except unique.* values (datacenter, pool,
// class, attributes, meta, drivers' health). Nodes of one class are
// feasible or not together, so the scheduler checks one node per class and
// the blocked-evals tracker can tell which new nodes could help an eval.
func ComputeClass(n *structs.Node) string {
	h := fnv.New64a()
	field := func(parts ...string) {
		for _, p := range parts {
			io.WriteString(h, p)
			h.Write([]byte{0})
		}
	}
	field("dc", n.Datacenter, "pool", n.NodePool, "class", n.NodeClass)
	hashMap(field, "attr", n.Attributes)
	hashMap(field, "meta", n.Meta)
	for _, name := range sortedKeys(n.Drivers) {
		d := n.Drivers[name]
		field("driver", name, strconv.FormatBool(d != nil && d.Detected), strconv.FormatBool(d != nil && d.Healthy))
	}
	return "v1:" + strconv.FormatUint(h.Sum64(), 10)
}

func hashMap(field func(...string), kind string, m map[string]string) {
	for _, k := range sortedKeys(m) {
		if !strings.HasPrefix(k, uniquePrefix) {
			field(kind, k, m[k])
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// classOf returns the node's computed class, computing (and remembering for
// this eval) the classes of nodes registered without one.
func (c *evalContext) classOf(n *structs.Node) string {
	if n.ComputedClass != "" {
		return n.ComputedClass
	}
	if cls, ok := c.classes[n.ID]; ok {
		return cls
	}
	cls := ComputeClass(n)
	c.classes[n.ID] = cls
	return cls
}

// markClass records whether a class is feasible for some task group; the
// blocked eval carries this so only relevant node changes unblock it.
func (c *evalContext) markClass(class string, ok bool) {
	c.eligible[class] = c.eligible[class] || ok
}

// classEligibility returns a copy of the class eligibility map.
func (c *evalContext) classEligibility() map[string]bool {
	out := make(map[string]bool, len(c.eligible))
	for k, v := range c.eligible {
		out[k] = v
	}
	return out
}
