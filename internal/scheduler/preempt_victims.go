package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// Bounds of the victim search on one node.
const (
	// MaxExactVictims is the largest victim set searched exhaustively for
	// the fewest evictions. Needing more allocs than this to make room is
	// rare, and then a greedy pick is good enough.
	MaxExactVictims = 4
	// VictimSearchBudget bounds the victim sets checked per node, so a node
	// crowded with small allocs cannot make a failed placement slow.
	VictimSearchBudget = 4096
)

// victimSet is one way to make room on a node, with what ranks it.
type victimSet struct {
	victims  []*victim
	maxPrio  int
	sumPrio  int
	distance float64
}

func newVictimSet(vs []*victim, need structs.ComparableResources) *victimSet {
	set := &victimSet{victims: vs}
	var freed structs.ComparableResources
	for _, v := range vs {
		set.maxPrio = max(set.maxPrio, v.priority)
		set.sumPrio += v.priority
		freed.Add(&v.frees)
	}
	set.distance = distance(freed, need)
	return set
}

// compareEvictions orders sets by what they disturb: fewest evictions,
// then the lowest priorities (highest first, then in total).
func (a *victimSet) compareEvictions(b *victimSet) int {
	return cmp.Or(cmp.Compare(len(a.victims), len(b.victims)), cmp.Compare(a.maxPrio, b.maxPrio), cmp.Compare(a.sumPrio, b.sumPrio))
}

// compare adds the last rule within a node: free the least beyond the need.
func (a *victimSet) compare(b *victimSet) int {
	return cmp.Or(a.compareEvictions(b), cmp.Compare(a.distance, b.distance))
}

// nodeVictims returns the best set of allocs whose eviction makes room for
// the group on the node, or false when no allowed eviction does. Allocs
// holding a static port the group asks for must all go; the rest of the
// shortfall is covered by as few others as possible.
func (p *preemptor) nodeVictims(g *groupStack, u *nodeUsage) (*victimSet, bool) {
	cands := p.candidates(u)
	if len(cands) == 0 {
		return nil, false
	}
	forced, rest, ok := portVictims(g.tg, u, cands)
	if !ok {
		return nil, false
	}
	short := g.shortfall(u)
	left := short
	for _, v := range forced {
		left.Subtract(&v.frees)
	}
	extra, ok := chooseVictims(rest, positive(left))
	if !ok || len(forced)+len(extra) == 0 {
		// Nothing to evict: what is short (e.g. dynamic ports) is not
		// something preemption frees.
		return nil, false
	}
	return newVictimSet(append(forced, extra...), short), true
}

// shortfall is what the node lacks for the group, per dimension.
func (g *groupStack) shortfall(u *nodeUsage) structs.ComparableResources {
	need := u.used
	ask := g.ask
	ask.CpuShares += int64(g.coreAsk) * mhzPerCore(u.node)
	need.Add(&ask)
	need.Subtract(&u.capacity)
	return positive(need)
}

// portVictims splits the candidates into those holding a static port the
// group asks for, which must be evicted, and the rest. It fails when such
// a port is also held by the node itself or by an alloc that may not be
// evicted.
func portVictims(tg *structs.TaskGroup, u *nodeUsage, cands []*victim) (forced, rest []*victim, ok bool) {
	wanted := map[int]bool{}
	for _, p := range staticPorts(tg) {
		if u.ports[p] > 0 {
			wanted[p] = true
		}
	}
	if len(wanted) == 0 {
		return nil, cands, true
	}
	held := map[int]int{}
	for _, v := range cands {
		hit := false
		forEachPort(v.alloc, func(p int) {
			if wanted[p] {
				held[p]++
				hit = true
			}
		})
		if hit {
			forced = append(forced, v)
		} else {
			rest = append(rest, v)
		}
	}
	for p := range wanted {
		if held[p] < u.ports[p] {
			return nil, nil, false
		}
	}
	return forced, rest, true
}

// staticPorts lists the host ports the group reserves by number.
func staticPorts(tg *structs.TaskGroup) []int {
	var out []int
	add := func(nets []*structs.NetworkResource) {
		for _, n := range nets {
			for _, p := range n.ReservedPorts {
				out = append(out, p.Value)
			}
		}
	}
	add(tg.Networks)
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			add(t.Resources.Networks)
		}
	}
	return out
}

// chooseVictims picks candidates that together free need: the fewest
// possible when a small set does it, else a greedy cover.
func chooseVictims(cands []*victim, need structs.ComparableResources) ([]*victim, bool) {
	if need == (structs.ComparableResources{}) {
		return nil, true
	}
	if !covers(sumFrees(cands), need) {
		return nil, false // even evicting every candidate is not enough
	}
	if vs, ok := exactVictims(cands, need); ok {
		return vs, true
	}
	return greedyVictims(cands, need), true
}

// exactVictims tries every set of 1, 2, ... MaxExactVictims candidates and
// returns the best of the smallest size that frees need; false when none
// does within the sizes and budget.
func exactVictims(cands []*victim, need structs.ComparableResources) ([]*victim, bool) {
	budget := VictimSearchBudget
	pick := make([]*victim, 0, MaxExactVictims)
	for k := 1; k <= min(MaxExactVictims, len(cands)); k++ {
		var best *victimSet
		forEachCombination(len(cands), k, func(idx []int) bool {
			budget--
			pick = pick[:0]
			for _, i := range idx {
				pick = append(pick, cands[i])
			}
			if covers(sumFrees(pick), need) {
				if set := newVictimSet(pick, need); best == nil || set.compare(best) < 0 {
					set.victims = slices.Clone(pick)
					best = set
				}
			}
			return budget > 0
		})
		if best != nil {
			return best.victims, true
		}
		if budget <= 0 {
			return nil, false
		}
	}
	return nil, false
}

// forEachCombination calls fn with every k-subset of 0..n-1 as ascending
// indexes, in lexicographic order, until fn returns false.
func forEachCombination(n, k int, fn func([]int) bool) {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for fn(idx) {
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// greedyVictims covers need from the lowest priority up, each time taking
// the candidate of that priority closest to what is still missing, then
// drops victims that turned out unnecessary so no more is evicted than
// needed. The caller has checked that all candidates together cover need.
func greedyVictims(cands []*victim, need structs.ComparableResources) []*victim {
	remaining := slices.Clone(cands) // sorted by priority
	var picked []*victim
	left := need
	for left != (structs.ComparableResources{}) && len(remaining) > 0 {
		best := 0
		for i, v := range remaining {
			if v.priority != remaining[0].priority {
				break
			}
			if distance(v.frees, left) < distance(remaining[best].frees, left) {
				best = i
			}
		}
		picked = append(picked, remaining[best])
		left.Subtract(&remaining[best].frees)
		left = positive(left)
		remaining = slices.Delete(remaining, best, best+1)
	}
	return prune(picked, need)
}

// prune removes victims the others already make up for, trying the
// highest priority (latest picked) first.
func prune(picked []*victim, need structs.ComparableResources) []*victim {
	for i := len(picked) - 1; i >= 0; i-- {
		without := slices.Delete(slices.Clone(picked), i, i+1)
		if covers(sumFrees(without), need) {
			picked = without
		}
	}
	return picked
}

// distance is how far freed is from need, relative to need on each short
// dimension: 0 for an exact fit. Among equally disruptive choices the one
// closest to the need leaves the node least emptied for nothing.
func distance(freed, need structs.ComparableResources) float64 {
	sum := 0.0
	term := func(f, n int64) {
		if n > 0 {
			d := float64(f-n) / float64(n)
			sum += d * d
		}
	}
	term(freed.CpuShares, need.CpuShares)
	term(int64(freed.Cores), int64(need.Cores))
	term(freed.MemoryMB, need.MemoryMB)
	term(freed.DiskMB, need.DiskMB)
	return math.Sqrt(sum)
}

func covers(freed, need structs.ComparableResources) bool {
	ok, _ := freed.Superset(&need)
	return ok
}

func sumFrees(vs []*victim) structs.ComparableResources {
	var total structs.ComparableResources
	for _, v := range vs {
		total.Add(&v.frees)
	}
	return total
}

// positive clamps each dimension at zero: a surplus on one dimension does
// not make up for a shortage on another.
func positive(c structs.ComparableResources) structs.ComparableResources {
	c.CpuShares = max(c.CpuShares, 0)
	c.Cores = max(c.Cores, 0)
	c.MemoryMB = max(c.MemoryMB, 0)
	c.DiskMB = max(c.DiskMB, 0)
	return c
}
