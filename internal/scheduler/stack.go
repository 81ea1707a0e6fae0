package scheduler

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Sampling: a placement ranks a limited number of feasible nodes, taken in
// a per-eval random order, and picks the best of them.
const (
	// PreferenceSamplingLimit is how many feasible nodes are ranked when the
	// group has affinities or spreads, which need a wider view to matter.
	PreferenceSamplingLimit = 100
	// batchSamplingLimit is the batch scheduler's: speed over quality.
	batchSamplingLimit = 2
	// maxSkip is how many negatively scored nodes may be passed over
	// (without counting toward the limit) before accepting them.
	maxSkip = 3
	// topScores is how many node scores are recorded per placement.
	topScores = 5
	// recentNodes is how many nodes the group was last placed on that are
	// ranked again on the next placement besides the sample. Without this a
	// walk over thousands of nodes rarely comes back to a half-filled node
	// within one eval, and packing suffers.
	recentNodes = 2
)

// placementStack places the allocs of one job in one planning attempt.
type placementStack struct {
	ctx            *evalContext
	job            *structs.Job
	batch          bool
	system         bool            // one alloc per node: no anti-affinity
	nodes          []*structs.Node // ready nodes in the job's datacenters and pool, shuffled
	nodesAvailable map[string]int  // ready nodes per datacenter; shared, read only
	nodesInPool    int
	groups         map[string]*groupStack
	preempt        *preemptor // nil: the job may not preempt
}

// newPlacementStack selects the candidate nodes: ready, in one of the
// job's datacenters and in its pool (through memo, which may be nil);
// shuffled with the eval's seed.
// The caller releases the stack when its placements are done.
func newPlacementStack(ctx *evalContext, job *structs.Job, batch bool, all []*structs.Node, memo *candidateMemo) *placementStack {
	c := memo.jobCandidates(job, all)
	s := &placementStack{ctx: ctx, job: job, batch: batch, groups: map[string]*groupStack{},
		nodes: shuffleBuffer(c.nodes), nodesAvailable: c.nodesAvailable, nodesInPool: c.nodesInPool,
		preempt: newPreemptor(ctx, job)}
	ctx.rng.Shuffle(len(s.nodes), func(i, j int) { s.nodes[i], s.nodes[j] = s.nodes[j], s.nodes[i] })
	return s
}

// shuffleBuffers reuses the stacks' node orders: each eval shuffles its
// own copy of the candidate list, and on a large cluster that copy (8
// bytes a node) was a few percent of all the bytes a scheduling run
// allocated.
var shuffleBuffers sync.Pool

// shuffleBuffer returns a copy of nodes in a pooled slice.
func shuffleBuffer(nodes []*structs.Node) []*structs.Node {
	if p, ok := shuffleBuffers.Get().(*[]*structs.Node); ok && cap(*p) >= len(nodes) {
		return append((*p)[:0], nodes...)
	}
	return slices.Clone(nodes)
}

// release gives the stack's node order back for reuse; the stack must not
// be used after. The order is cleared so the pool holds no nodes alive.
func (s *placementStack) release() {
	buf := s.nodes[:cap(s.nodes)]
	clear(buf)
	s.nodes = nil
	shuffleBuffers.Put(&buf)
}

func (s *placementStack) newMetric() *structs.AllocMetric {
	avail := make(map[string]int, len(s.nodesAvailable))
	for k, v := range s.nodesAvailable {
		avail[k] = v
	}
	return &structs.AllocMetric{NodesInPool: s.nodesInPool, NodesAvailable: avail}
}

// group returns the stack of a task group, building it on first use.
func (s *placementStack) group(tg *structs.TaskGroup, kept []*structs.Allocation) *groupStack {
	if g, ok := s.groups[tg.Name]; ok {
		return g
	}
	g := newGroupStack(s, tg, kept)
	s.groups[tg.Name] = g
	return g
}

// groupStack ranks nodes for the placements of one task group.
type groupStack struct {
	s       *placementStack
	tg      *structs.TaskGroup
	feas    *feasibility
	aff     *affinityScorer
	spread  *spreadScorer
	limit   int
	cursor  int
	recent  []*structs.Node
	ask     structs.ComparableResources // without CPU of reserved cores
	coreAsk int
	ports   bool
}

// newGroupStack prepares a group; kept are its allocs that stay where they
// are (for spread counts).
func newGroupStack(s *placementStack, tg *structs.TaskGroup, kept []*structs.Allocation) *groupStack {
	g := &groupStack{
		s: s, tg: tg,
		feas:   newFeasibility(s.ctx, s.job, tg),
		aff:    newAffinityScorer(s.ctx, s.job, tg),
		spread: newSpreadScorer(s.job, tg),
		ports:  needsPorts(tg),
	}
	g.limit = samplingLimit(len(s.nodes), s.batch, g.aff.active() || g.spread.active())
	g.ask, g.coreAsk = groupAsk(tg)
	if g.spread.active() {
		for _, a := range kept {
			if n := s.ctx.nodes[a.NodeID]; n != nil {
				g.spread.placed(n, 1)
			}
		}
		if g.spread.needsValues() {
			var feasible []*structs.Node
			for _, n := range s.nodes {
				if g.feas.classFeasible(n) {
					feasible = append(feasible, n)
				}
			}
			g.spread.setValues(tg.Count, feasible)
		}
	}
	return g
}

// samplingLimit is max(2, ceil(log2 n)) for services, 2 for batch, and at
// least PreferenceSamplingLimit with affinities or spreads.
func samplingLimit(n int, batch, preferences bool) int {
	limit := batchSamplingLimit
	if !batch && n > 0 {
		limit = max(2, int(math.Ceil(math.Log2(float64(n)))))
	}
	if preferences {
		limit = max(limit, PreferenceSamplingLimit)
	}
	return limit
}

// groupAsk sums what the group's tasks ask for; CPU of reserved cores
// depends on the node and is added per node.
func groupAsk(tg *structs.TaskGroup) (structs.ComparableResources, int) {
	var ask structs.ComparableResources
	cores := 0
	for _, t := range tg.Tasks {
		r := t.Resources
		if r == nil {
			continue
		}
		if r.Cores > 0 {
			cores += r.Cores
		} else {
			ask.CpuShares += int64(r.CPU)
		}
		ask.MemoryMB += int64(r.MemoryMB)
	}
	if tg.EphemeralDisk != nil {
		ask.DiskMB = int64(tg.EphemeralDisk.SizeMB)
	}
	ask.Cores = cores
	return ask, cores
}

// option is a ranked candidate node.
type option struct {
	node   *structs.Node
	scores scores
	final  float64
	offer  *networkOffer
	cores  map[string][]uint16 // task -> reserved cores
	// devices: task -> granted device instances
	devices map[string][]*structs.AllocatedDeviceResource
}

// selectNode ranks the recent nodes and up to limit sampled feasible nodes
// and returns the best, or nil with the metrics explaining why none fit.
func (g *groupStack) selectNode(penalty map[string]bool) (*option, *structs.AllocMetric) {
	elapsed := g.s.ctx.startStopwatch()
	m := g.s.newMetric()
	var top []*option
	var cand option
	for _, n := range g.recent {
		if g.consider(n, m, penalty, &cand) {
			top = keepTop(top, &cand)
		}
	}
	nodes := g.s.nodes
	found, skipped := 0, 0
	for visited := 0; visited < len(nodes) && found < g.limit; visited++ {
		n := nodes[g.cursor]
		g.cursor = (g.cursor + 1) % len(nodes)
		if g.isRecent(n) {
			continue
		}
		if !g.consider(n, m, penalty, &cand) {
			continue
		}
		if cand.final < 0 && skipped < maxSkip {
			skipped++
		} else {
			found++
		}
		top = keepTop(top, &cand)
	}
	return g.finish(top, m, elapsed)
}

// isRecent reports whether n is one of the (at most recentNodes) nodes
// already ranked first. It runs for every visited node, and hashing (or
// comparing) node IDs was a fifth of a large eval's time, so it compares
// pointers: every node a group ranks, hence every recent one, is an
// element of the stack's node list, which holds each node once.
func (g *groupStack) isRecent(n *structs.Node) bool {
	for _, r := range g.recent {
		if r == n {
			return true
		}
	}
	return false
}

// selectOn ranks one given node (system jobs place per node).
func (g *groupStack) selectOn(n *structs.Node) (*option, *structs.AllocMetric) {
	elapsed := g.s.ctx.startStopwatch()
	m := g.s.newMetric()
	var cand option
	var top []*option
	if g.consider(n, m, nil, &cand) {
		top = keepTop(nil, &cand)
	}
	return g.finish(top, m, elapsed)
}

func (g *groupStack) finish(top []*option, m *structs.AllocMetric, elapsed func() time.Duration) (*option, *structs.AllocMetric) {
	for _, o := range top {
		m.ScoreMetaData = append(m.ScoreMetaData, &structs.NodeScoreMeta{NodeID: o.node.ID, Scores: o.scores.asMap(), NormScore: o.final})
	}
	m.AllocationTime = elapsed()
	if len(top) == 0 {
		return nil, m
	}
	return top[0], m
}

// keepTop inserts a copy of o into the best-first list of at most
// topScores options; on equal scores the earlier one stays ahead.
func keepTop(top []*option, o *option) []*option {
	i := len(top)
	for i > 0 && top[i-1].final < o.final {
		i--
	}
	if i >= topScores {
		return top
	}
	kept := *o
	top = append(top, nil)
	copy(top[i+1:], top[i:])
	top[i] = &kept
	if len(top) > topScores {
		top = top[:topScores]
	}
	return top
}

// placed records a placement on n for the next ones of the group.
func (g *groupStack) placed(n *structs.Node) {
	g.spread.placed(n, 1)
	recent := []*structs.Node{n}
	for _, r := range g.recent {
		if r.ID != n.ID && len(recent) < recentNodes {
			recent = append(recent, r)
		}
	}
	g.recent = recent
}
