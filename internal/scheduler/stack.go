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
	ctx    *evalContext
	job    *structs.Job
	batch  bool
	system bool            // one alloc per node: no anti-affinity
	nodes  []*structs.Node // ready nodes in the job's datacenters and pool, shuffled
	// pos holds each node's position in the context's node list (ctx.all),
	// in the order of nodes; nil when the context has no list.
	pos            []int32
	nodesAvailable map[string]int // ready nodes per datacenter; shared, read only
	avail          map[string]int // the stack's copy of it, for the metrics
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
	if ctx.all != nil && sameList(ctx.all, all) {
		// The positions are shuffled with the nodes, by the same swaps:
		// the order of the nodes is what it was without them.
		s.pos = positionBuffer(c.pos)
		ctx.rng.Shuffle(len(s.nodes), func(i, j int) {
			s.nodes[i], s.nodes[j] = s.nodes[j], s.nodes[i]
			s.pos[i], s.pos[j] = s.pos[j], s.pos[i]
		})
		return s
	}
	ctx.rng.Shuffle(len(s.nodes), func(i, j int) { s.nodes[i], s.nodes[j] = s.nodes[j], s.nodes[i] })
	return s
}

// shuffleBuffers reuses the stacks' node orders: each eval shuffles its
// own copy of the candidate list, and on a large cluster that copy (8
// bytes a node) was a few percent of all the bytes a scheduling run
// allocated.
var shuffleBuffers, positionBuffers sync.Pool

// shuffleBuffer returns a copy of nodes in a pooled slice.
func shuffleBuffer(nodes []*structs.Node) []*structs.Node {
	if p, ok := shuffleBuffers.Get().(*[]*structs.Node); ok && cap(*p) >= len(nodes) {
		return append((*p)[:0], nodes...)
	}
	return slices.Clone(nodes)
}

// positionBuffer returns a copy of pos in a pooled slice.
func positionBuffer(pos []int32) []int32 {
	if p, ok := positionBuffers.Get().(*[]int32); ok && cap(*p) >= len(pos) {
		return append((*p)[:0], pos...)
	}
	return slices.Clone(pos)
}

// release gives the stack's node order back for reuse; the stack must not
// be used after. The order is cleared so the pool holds no nodes alive.
func (s *placementStack) release() {
	buf := s.nodes[:cap(s.nodes)]
	clear(buf)
	s.nodes = nil
	shuffleBuffers.Put(&buf)
	if s.pos != nil {
		pos := s.pos
		s.pos = nil
		positionBuffers.Put(&pos)
	}
}

// newMetric starts a placement's metrics. Every placement of the eval
// gets the same copy of the nodes available per datacenter: metrics are
// never modified once made (they are state objects once in the plan), and
// a copy per placement was two allocations of each.
func (s *placementStack) newMetric() *structs.AllocMetric {
	if s.avail == nil {
		s.avail = make(map[string]int, len(s.nodesAvailable))
		for k, v := range s.nodesAvailable {
			s.avail[k] = v
		}
	}
	return &structs.AllocMetric{NodesInPool: s.nodesInPool, NodesAvailable: s.avail}
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
	recent  []*structs.Node             // in recentBuf
	ask     structs.ComparableResources // without CPU of reserved cores
	coreAsk int
	ports   bool

	recentBuf [recentNodes]*structs.Node
	recentPos [recentNodes]int // positions of the recent nodes (-1: not known)
	// top is the best-first list of a placement's options (keepTop); one
	// buffer for every placement of the group.
	top [topScores]option
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
		if s.ctx.all != nil {
			g.spread.usePositions(len(s.ctx.all))
		}
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
	pos    int // the node's position in the context's node list; -1: not known
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
	top := g.top[:0]
	var cand option
	for i, n := range g.recent {
		if g.consider(n, g.recentPos[i], m, penalty, &cand) {
			top = keepTop(top, &cand)
		}
	}
	nodes, pos := g.s.nodes, g.s.pos
	found, skipped := 0, 0
	for visited := 0; visited < len(nodes) && found < g.limit; visited++ {
		i := g.cursor
		n := nodes[i]
		g.cursor = (g.cursor + 1) % len(nodes)
		if g.isRecent(n) {
			continue
		}
		p := -1
		if pos != nil {
			p = int(pos[i])
		}
		if !g.consider(n, p, m, penalty, &cand) {
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
	top := g.top[:0]
	if g.consider(n, -1, m, nil, &cand) {
		top = keepTop(top, &cand)
	}
	return g.finish(top, m, elapsed)
}

// finish records the scores of the best options in the metrics and
// returns a copy of the best (top is the group's buffer, reused by the
// next placement).
func (g *groupStack) finish(top []option, m *structs.AllocMetric, elapsed func() time.Duration) (*option, *structs.AllocMetric) {
	if len(top) > 0 {
		metas := make([]structs.NodeScoreMeta, len(top))
		m.ScoreMetaData = make([]*structs.NodeScoreMeta, len(top))
		for i := range top {
			metas[i] = structs.NodeScoreMeta{NodeID: top[i].node.ID, Scores: g.s.ctx.sharedMap(&top[i].scores), NormScore: top[i].final}
			m.ScoreMetaData[i] = &metas[i]
		}
	}
	m.AllocationTime = elapsed()
	if len(top) == 0 {
		return nil, m
	}
	best := top[0]
	return &best, m
}

// keepTop inserts a copy of o into the best-first list of at most
// topScores options; on equal scores the earlier one stays ahead. The
// list grows within its capacity, which is at least topScores.
func keepTop(top []option, o *option) []option {
	i := len(top)
	for i > 0 && top[i-1].final < o.final {
		i--
	}
	if i >= topScores {
		return top
	}
	if len(top) < topScores {
		top = append(top, option{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = *o
	return top
}

// placed records a placement on n (at position p of the context's node
// list, -1 if not known) for the next ones of the group.
func (g *groupStack) placed(n *structs.Node, p int) {
	g.spread.placed(n, 1)
	var recent [recentNodes]*structs.Node
	var pos [recentNodes]int
	recent[0], pos[0] = n, p
	k := 1
	for i, r := range g.recent {
		if r.ID != n.ID && k < recentNodes {
			recent[k], pos[k] = r, g.recentPos[i]
			k++
		}
	}
	g.recentBuf, g.recentPos = recent, pos
	g.recent = g.recentBuf[:k]
}
