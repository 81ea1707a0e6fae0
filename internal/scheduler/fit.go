package scheduler

import (
	"github.com/drover-project/drover/internal/structs"
)

// consider runs feasibility, resource fit and scoring for one node into
// opt; false when the node is infeasible or full (recorded in m). The
// option is filled in place because most candidates are discarded. p is
// the node's position in the context's node list, or -1 when not known.
func (g *groupStack) consider(n *structs.Node, p int, m *structs.AllocMetric, penalty map[string]bool, opt *option) bool {
	return g.feas.feasibleAt(n, p, m) && g.fitAt(n, p, m, penalty, opt)
}

// fit checks the resources of a node already known to be feasible and
// scores it; preemption calls it again once victims are out of the usage.
func (g *groupStack) fit(n *structs.Node, m *structs.AllocMetric, penalty map[string]bool, opt *option) bool {
	return g.fitAt(n, -1, m, penalty, opt)
}

// fitAt is fit with the node's position in the context's node list (-1:
// not known).
func (g *groupStack) fitAt(n *structs.Node, p int, m *structs.AllocMetric, penalty map[string]bool, opt *option) bool {
	ctx := g.s.ctx
	var u *nodeUsage
	var err error
	if p >= 0 {
		u, err = ctx.rankingUsage(p, n)
	} else {
		u, err = ctx.nodeUsage(n)
	}
	if err != nil {
		return false
	}
	if g.coreAsk > 0 && u.used.Cores+g.coreAsk > u.capacity.Cores {
		exhausted(ctx, m, n, "cores") // the root cause, though CPU is short too
		return false
	}
	need := u.used
	ask := g.ask
	if g.coreAsk > 0 {
		ask.CpuShares += int64(g.coreAsk) * mhzPerCore(n)
	}
	need.Add(&ask)
	if ok, dim := u.capacity.Superset(&need); !ok {
		exhausted(ctx, m, n, dim)
		return false
	}
	*opt = option{node: n, pos: p}
	if g.coreAsk > 0 {
		if opt.cores = assignCores(u, g.tg); opt.cores == nil {
			exhausted(ctx, m, n, "cores")
			return false
		}
	}
	if asks := deviceAsks(g.tg); len(asks) > 0 {
		devices, reason := ctx.assignDevices(u, asks)
		if devices == nil {
			exhausted(ctx, m, n, reason)
			return false
		}
		opt.devices = devices
	}
	if g.ports {
		offer, reason := assignPorts(u, g.tg, ctx.rng)
		if offer == nil {
			exhausted(ctx, m, n, reason)
			return false
		}
		opt.offer = offer
	}
	g.score(opt, u, &need, penalty)
	return true
}

func exhausted(ctx *evalContext, m *structs.AllocMetric, n *structs.Node, dim string) {
	m.NodesExhausted++
	incr(&m.DimensionExhausted, dim)
	countClass(&m.ClassExhausted, n)
}

// score fills the option's components and final score.
func (g *groupStack) score(opt *option, u *nodeUsage, after *structs.ComparableResources, penalty map[string]bool) {
	ctx := g.s.ctx
	opt.scores.add(scoreFit, ctx.powers().fitScore(ctx.cfg.EffectiveAlgorithm(), &u.capacity, after))
	if !g.s.system {
		opt.scores.add(scoreAntiAffinity, antiAffinityScore(u.countGroup(g.s.job.ID, g.tg.Name), g.tg.Count))
	}
	if len(penalty) > 0 {
		p := 0.0
		if penalty[opt.node.ID] {
			p = -1
		}
		opt.scores.add(scorePenalty, p)
	}
	if g.aff.active() {
		opt.scores.add(scoreAffinity, g.aff.score(opt.node))
	}
	if g.spread.active() {
		opt.scores.add(scoreSpread, g.spread.scoreAt(opt.node, opt.pos))
	}
	opt.final = opt.scores.mean()
}

// mhzPerCore is the CPU a reserved core brings, for tasks that ask for cores.
func mhzPerCore(n *structs.Node) int64 {
	if n.NodeResources == nil || n.NodeResources.CPU.TotalCpuCores == 0 {
		return 0
	}
	return n.NodeResources.CPU.CpuShares / int64(n.NodeResources.CPU.TotalCpuCores)
}

// assignCores picks free reservable cores for each task that asks for
// cores, lowest first; nil when there are not enough.
func assignCores(u *nodeUsage, tg *structs.TaskGroup) map[string][]uint16 {
	cpu := u.node.NodeResources.CPU
	avail := cpu.ReservableCpuCores
	if len(avail) == 0 {
		for c := uint16(0); c < cpu.TotalCpuCores; c++ {
			avail = append(avail, c)
		}
	}
	taken := map[uint16]bool{}
	out := map[string][]uint16{}
	for _, t := range tg.Tasks {
		if t.Resources == nil || t.Resources.Cores == 0 {
			continue
		}
		for _, c := range avail {
			if len(out[t.Name]) == t.Resources.Cores {
				break
			}
			if !u.cores[c] && !taken[c] {
				taken[c] = true
				out[t.Name] = append(out[t.Name], c)
			}
		}
		if len(out[t.Name]) < t.Resources.Cores {
			return nil
		}
	}
	return out
}

// resources builds what the placement is granted on the chosen node.
func (g *groupStack) resources(opt *option) *structs.AllocatedResources {
	ar := &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{}}
	oversubscribe := g.s.ctx.cfg.MemoryOversubscriptionEnabled
	for _, t := range g.tg.Tasks {
		tr := &structs.AllocatedTaskResources{}
		if r := t.Resources; r != nil {
			tr.CpuShares = int64(r.CPU)
			tr.MemoryMB = int64(r.MemoryMB)
			if oversubscribe && r.MemoryMaxMB > r.MemoryMB {
				tr.MemoryMaxMB = int64(r.MemoryMaxMB)
			}
			if r.Cores > 0 {
				tr.ReservedCores = opt.cores[t.Name]
				tr.CpuShares = int64(r.Cores) * mhzPerCore(opt.node)
			}
		}
		if opt.offer != nil {
			tr.Networks = opt.offer.tasks[t.Name]
		}
		tr.Devices = opt.devices[t.Name]
		ar.Tasks[t.Name] = tr
	}
	ar.Shared.DiskMB = g.ask.DiskMB
	if opt.offer != nil {
		ar.Shared.Networks = opt.offer.shared
		ar.Shared.Ports = opt.offer.ports
	}
	return ar
}
