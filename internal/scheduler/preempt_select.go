package scheduler

import (
	"github.com/drover-project/drover/internal/structs"
)

// ScorePreemption is the score component recorded (in the placement's
// AllocMetric.ScoreMetaData) for a node chosen by preemption: minus the
// number of allocs evicted there. It explains the choice; it takes no part
// in the normalised score.
const ScorePreemption = "preemption"

// preemptOption is a node where the placement fits once victims are gone.
type preemptOption struct {
	opt     option
	victims *victimSet
}

// better ranks nodes by what they disturb first; the normal score only
// breaks ties, since evicting less matters more than packing well.
func (a *preemptOption) better(b *preemptOption) bool {
	if c := a.victims.compareEvictions(b.victims); c != 0 {
		return c < 0
	}
	if a.opt.final != b.opt.final {
		return a.opt.final > b.opt.final
	}
	return a.victims.distance < b.victims.distance
}

// selectOrPreempt ranks nodes the normal way and, only when none has room
// and the job may preempt, looks for evictions that make room. victims are
// the allocs to evict for the returned option.
func (g *groupStack) selectOrPreempt(penalty map[string]bool) (opt *option, m *structs.AllocMetric, victims []*structs.Allocation) {
	opt, m = g.selectNode(penalty)
	if opt == nil && g.s.preempt != nil {
		opt, victims = g.selectByPreemption(penalty, m)
	}
	return opt, m, victims
}

// selectOnOrPreempt is selectOrPreempt on the system schedulers' fixed
// node. An infeasible node is not a candidate for preemption either.
func (g *groupStack) selectOnOrPreempt(n *structs.Node) (opt *option, m *structs.AllocMetric, victims []*structs.Allocation) {
	opt, m = g.selectOn(n)
	if opt == nil && m.NodesFiltered == 0 && g.s.preempt != nil {
		if po := g.tryPreempt(n, nil); po != nil {
			opt, victims = g.chosenByPreemption(po, m)
		}
	}
	return opt, m, victims
}

// selectByPreemption walks the feasible nodes in the stack's order and
// weighs up to limit nodes where evictions make room, as the normal
// ranking samples limit nodes with room.
func (g *groupStack) selectByPreemption(penalty map[string]bool, m *structs.AllocMetric) (*option, []*structs.Allocation) {
	var best *preemptOption
	nodes := g.s.nodes
	found := 0
	for i := 0; i < len(nodes) && found < g.limit; i++ {
		po := g.tryPreempt(nodes[(g.cursor+i)%len(nodes)], penalty)
		if po == nil {
			continue
		}
		found++
		if best == nil || po.better(best) {
			best = po
		}
	}
	if best == nil {
		return nil, nil
	}
	return g.chosenByPreemption(best, m)
}

// tryPreempt finds the victims on one node and the option the placement
// would get without them. The usage is restored afterwards: only the
// chosen node's victims are evicted. Nil when the node is infeasible or
// no allowed eviction makes room. Metrics go to a scratch metric, since
// the failed normal pass already explained every node.
func (g *groupStack) tryPreempt(n *structs.Node, penalty map[string]bool) *preemptOption {
	var scratch structs.AllocMetric
	if !g.feas.feasible(n, &scratch) {
		return nil
	}
	u, err := g.s.ctx.nodeUsage(n)
	if err != nil {
		return nil
	}
	set, ok := g.s.preempt.nodeVictims(g, u)
	if !ok {
		return nil
	}
	for _, v := range set.victims {
		u.remove(v.alloc.ID)
	}
	po := &preemptOption{victims: set}
	fits := g.fit(n, &scratch, penalty, &po.opt)
	for _, v := range set.victims {
		u.add(v.alloc)
	}
	if !fits {
		return nil // e.g. the freed cores are not reservable ones
	}
	return po
}

// chosenByPreemption records the choice in the placement's metrics and
// returns the option with the allocs to evict.
func (g *groupStack) chosenByPreemption(po *preemptOption, m *structs.AllocMetric) (*option, []*structs.Allocation) {
	victims := make([]*structs.Allocation, len(po.victims.victims))
	for i, v := range po.victims.victims {
		victims[i] = v.alloc
	}
	scores := po.opt.scores.asMap()
	scores[ScorePreemption] = -float64(len(victims))
	m.ScoreMetaData = append(m.ScoreMetaData, &structs.NodeScoreMeta{NodeID: po.opt.node.ID, Scores: scores, NormScore: po.opt.final})
	return &po.opt, victims
}
