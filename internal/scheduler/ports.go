package scheduler

import (
	"math/rand/v2"
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
// range. On failure it returns the exhausted dimension, e.g.
// "network: reserved port collision http=80".
func assignPorts(u *nodeUsage, tg *structs.TaskGroup, rng *rand.Rand) (*networkOffer, string) {
	a := &portAssigner{u: u, rng: rng, taken: map[int]bool{}, ip: nodeIP(u.node)}
	a.lo, a.hi = dynamicRange(u.node)
	offer := &networkOffer{}
	for _, n := range tg.Networks {
		nr, reason := a.assign(n)
		if reason != "" {
			return nil, reason
		}
		offer.shared = append(offer.shared, nr)
		offer.ports = append(offer.ports, a.mappings(nr)...)
	}
	for _, t := range tg.Tasks {
		if t.Resources == nil {
			continue
		}
		for _, n := range t.Resources.Networks {
			nr, reason := a.assign(n)
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
	taken  map[int]bool // ports granted to this placement so far
	ip     string
	lo, hi int
}

func (a *portAssigner) used(p int) bool { return a.taken[p] || a.u.ports[p] > 0 }

func (a *portAssigner) assign(ask *structs.NetworkResource) (*structs.NetworkResource, string) {
	nr := ask.Copy()
	if nr.IP == "" {
		nr.IP = a.ip
	}
	for _, p := range nr.ReservedPorts {
		if p.Value <= 0 || a.used(p.Value) {
			return nil, "network: reserved port collision " + p.Label + "=" + strconv.Itoa(p.Value)
		}
		a.taken[p.Value] = true
	}
	for i := range nr.DynamicPorts {
		p, ok := a.pickDynamic()
		if !ok {
			return nil, "network: dynamic port selection failed"
		}
		nr.DynamicPorts[i].Value = p
		a.taken[p] = true
	}
	return nr, ""
}

// pickDynamic picks a free port in the node's range: a few random tries,
// then a scan from a random start so a nearly full range still succeeds.
func (a *portAssigner) pickDynamic() (int, bool) {
	span := a.hi - a.lo + 1
	for i := 0; i < randomPortTries; i++ {
		if p := a.lo + a.rng.IntN(span); !a.used(p) {
			return p, true
		}
	}
	start := a.rng.IntN(span)
	for i := 0; i < span; i++ {
		if p := a.lo + (start+i)%span; !a.used(p) {
			return p, true
		}
	}
	return 0, false
}

func (a *portAssigner) mappings(nr *structs.NetworkResource) []structs.AllocatedPortMapping {
	var out []structs.AllocatedPortMapping
	for _, ports := range [][]structs.Port{nr.ReservedPorts, nr.DynamicPorts} {
		for _, p := range ports {
			out = append(out, structs.AllocatedPortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: nr.IP})
		}
	}
	return out
}
