package scheduler

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// evalContext is the state of one planning attempt: the snapshot, the plan
// being built, and what the plan implies for each node. Every change to the
// plan goes through it, so the cached node usage never goes stale.
type evalContext struct {
	state State
	eval  *structs.Evaluation
	job   *structs.Job
	plan  *structs.Plan
	cfg   *structs.SchedulerConfiguration
	now   time.Time
	rng   *rand.Rand
	// stopwatch times each placement (AllocMetric.AllocationTime); nil
	// leaves it zero.
	stopwatch func() func() time.Duration

	// Node usage, computed on first use: by position in all (the
	// snapshot's node list, sorted by ID) for the nodes in it, by node ID
	// for any other (a context made without the list). usageSlab hands out
	// the usages in blocks; stored holds every node's stored summary by
	// position once scanUsage read them in one pass (storedScanned).
	all       []*structs.Node
	usageAt   []*nodeUsage
	usage     map[string]*nodeUsage
	usageSlab []nodeUsage
	inPlan    []bool // by position: the plan places or updates allocs there
	lastPos   struct {
		id string
		p  int
		ok bool
	} // position's last answer
	scratch       nodeUsage // rankingUsage's
	stored        []*structs.NodeUsage
	storedScanned bool
	scanNow       bool // expectRanks: scan at the first read
	noScan        bool // the State cannot scan, or scanned out of order
	lookups       int  // point reads of stored usage so far
	pow10         *pow10Cache
	scoreMaps     map[scoreKey]map[string]float64 // sharedMap's
	classes       map[string]string               // node ID -> computed class, when not stored
	eligible      map[string]bool                 // computed class -> feasible for some group
	escaped       bool                            // some constraint escaped the class cache
	stopped       map[string]bool                 // alloc IDs the plan stops or preempts

	nodes      map[string]*structs.Node // every node in the snapshot, by ID
	jobAllocs  []*structs.Allocation    // the job's stored allocs
	generation int                      // bumped on every plan change
	propCounts map[string]propertyCounts

	regexps  map[string]*regexp.Regexp
	versions map[string]*versionConstraint
}

func newEvalContext(state State, eval *structs.Evaluation, job *structs.Job, plan *structs.Plan, cfg *structs.SchedulerConfiguration, now time.Time) *evalContext {
	if cfg == nil {
		cfg = structs.DefaultSchedulerConfiguration()
	}
	return &evalContext{
		state: state, eval: eval, job: job, plan: plan, cfg: cfg, now: now,
		rng:        evalRand(eval.ID),
		usage:      map[string]*nodeUsage{},
		classes:    map[string]string{},
		eligible:   map[string]bool{},
		stopped:    map[string]bool{},
		nodes:      map[string]*structs.Node{},
		propCounts: map[string]propertyCounts{},
		regexps:    map[string]*regexp.Regexp{},
		versions:   map[string]*versionConstraint{},
	}
}

// setNodes gives the context the snapshot's node list (State.NodeSet's,
// sorted by ID), so that it keeps per-node state by position instead of
// by node ID. A list that is not sorted by ID (checked once per list
// through memo) is not used: positions are found by binary search.
func (c *evalContext) setNodes(all []*structs.Node, memo *candidateMemo) {
	if !memo.sortedByID(all) {
		return
	}
	c.all = all
	c.usageAt = make([]*nodeUsage, len(all))
	c.inPlan = make([]bool, len(all))
	for id := range c.plan.NodeAllocation {
		if p, ok := c.position(id); ok {
			c.inPlan[p] = true
		}
	}
}

// position returns the index of the node with this ID in c.all. The last
// answer is remembered: a node is often looked up twice in a row (ranked,
// then placed on).
func (c *evalContext) position(id string) (int, bool) {
	if c.all == nil {
		return 0, false
	}
	if c.lastPos.ok && c.lastPos.id == id {
		return c.lastPos.p, true
	}
	p, ok := slices.BinarySearchFunc(c.all, id, func(n *structs.Node, id string) int { return strings.Compare(n.ID, id) })
	if ok {
		c.lastPos.id, c.lastPos.p, c.lastPos.ok = id, p, true
	}
	return p, ok
}

// cachedUsage returns the node's usage if it was computed, else nil.
func (c *evalContext) cachedUsage(nodeID string) *nodeUsage {
	if p, ok := c.position(nodeID); ok {
		return c.usageAtOrNil(p)
	}
	return c.usage[nodeID]
}

// emptyUsage marks, in usageAt, a node known to have nothing on it: no
// stored allocs, none in the plan, no reserved ports (rankingUsage).
var emptyUsage = &nodeUsage{}

// usageAtOrNil is the computed usage at position p, nil if none.
func (c *evalContext) usageAtOrNil(p int) *nodeUsage {
	if u := c.usageAt[p]; u != emptyUsage {
		return u
	}
	return nil
}

// rankingUsage is nodeUsageAt for ranking the node at position p: the
// usage of a node with nothing on it (most of a large cluster's candidates
// until the plan places there) is not kept but set up in the context's
// scratch usage, valid until the next call. A caller that keeps a usage
// or changes it uses nodeUsage or nodeUsageAt.
func (c *evalContext) rankingUsage(p int, n *structs.Node) (*nodeUsage, error) {
	u := c.usageAt[p]
	switch {
	case u == emptyUsage && !c.inPlan[p]:
		initNodeUsage(&c.scratch, n)
		return &c.scratch, nil
	case u != nil && u != emptyUsage:
		return u, nil
	}
	if u == nil && !c.inPlan[p] && noReservedPorts(n) {
		stored, err := c.storedUsage(p, n.ID)
		if err != nil {
			return nil, err
		}
		if stored.Empty() {
			c.usageAt[p] = emptyUsage
			initNodeUsage(&c.scratch, n)
			return &c.scratch, nil
		}
		u = c.buildUsage(n, p, stored)
		c.usageAt[p] = u
		return u, nil
	}
	return c.nodeUsageAt(p, n)
}

func noReservedPorts(n *structs.Node) bool {
	return n.ReservedResources == nil || n.ReservedResources.ReservedPorts == ""
}

// nodeUsage returns what the node's proposed allocs (stored, minus the
// plan's stops, plus the plan's placements) use, computing it once. The
// stored part is the state store's per-node summary (one read, not the
// node's allocs).
func (c *evalContext) nodeUsage(n *structs.Node) (*nodeUsage, error) {
	if p, ok := c.position(n.ID); ok {
		return c.nodeUsageAt(p, n)
	}
	if u, ok := c.usage[n.ID]; ok {
		return u, nil
	}
	stored, err := c.state.NodeUsage(nil, n.ID)
	if err != nil {
		return nil, err
	}
	u := c.buildUsage(n, -1, stored)
	c.usage[n.ID] = u
	return u, nil
}

// nodeUsageAt is nodeUsage of the node at position p of c.all, without
// finding its position: the placement stack knows it.
func (c *evalContext) nodeUsageAt(p int, n *structs.Node) (*nodeUsage, error) {
	u := c.usageAt[p]
	if u != nil && u != emptyUsage {
		return u, nil
	}
	var stored *structs.NodeUsage // none when known empty
	if u == nil {
		var err error
		if stored, err = c.storedUsage(p, n.ID); err != nil {
			return nil, err
		}
	}
	u = c.buildUsage(n, p, stored)
	c.usageAt[p] = u
	return u, nil
}

// scanAfter is how many nodes' stored usage an eval reads one at a time
// before it reads the whole table in one pass: a point read costs a
// transaction and a tree descent (about ten times a step of the scan), so
// an eval that ranks a good part of a large cluster (hundreds of
// placements) is cheaper with the scan, and one that ranks a few dozen
// nodes without it.
func scanAfter(nodes int) int { return max(16, nodes/16) }

// usageScanner is implemented by the state store and its snapshots
// (state's EachNodeUsage). A State laid over another that changes allocs
// overrides NodeUsage and must not offer this: the overlays embed the
// State interface, which does not have it.
type usageScanner interface {
	EachNodeUsage(ws memdb.WatchSet, fn func(*structs.NodeUsage) bool) error
}

// expectRanks tells the context how many nodes its placements will rank
// at least: when that is a good part of the cluster (a quarter), the
// stored usages are read in one scan from the first one on.
func (c *evalContext) expectRanks(n int) {
	if c.all != nil && n >= len(c.all)/4 {
		c.scanNow = true
	}
}

// storedUsage returns the stored summary of the node at position p.
func (c *evalContext) storedUsage(p int, id string) (*structs.NodeUsage, error) {
	if c.storedScanned {
		return c.stored[p], nil
	}
	if c.lookups++; !c.noScan && (c.scanNow || c.lookups > scanAfter(len(c.all))) {
		if sc, ok := c.state.(usageScanner); ok {
			if err := c.scanUsage(sc); err != nil {
				return nil, err
			}
			if c.storedScanned {
				return c.stored[p], nil
			}
		} else {
			c.noScan = true
		}
	}
	return c.state.NodeUsage(nil, id)
}

// scanUsage reads every stored summary, matching them to c.all by a merge
// walk: both are in node ID order. Summaries of nodes not in the list
// (allocs left on a deleted node) are not needed.
// Summaries out of order (a scanner that does not keep its promise) would
// be missed, so they stop the scan, and the eval reads one at a time.
func (c *evalContext) scanUsage(sc usageScanner) error {
	stored := make([]*structs.NodeUsage, len(c.all))
	i, prev, seen, ordered := 0, "", false, true
	err := sc.EachNodeUsage(nil, func(u *structs.NodeUsage) bool {
		if seen && u.NodeID <= prev {
			ordered = false
			return false
		}
		prev, seen = u.NodeID, true
		for i < len(c.all) && c.all[i].ID < u.NodeID {
			i++
		}
		if i < len(c.all) && c.all[i].ID == u.NodeID {
			stored[i] = u
		}
		return i < len(c.all)
	})
	if err != nil {
		return err
	}
	if !ordered {
		c.noScan = true
		return nil
	}
	c.stored, c.storedScanned = stored, true
	return nil
}

// buildUsage computes a node's usage from its stored summary and the plan.
// p is its position in c.all, or -1 for a node not in it.
func (c *evalContext) buildUsage(n *structs.Node, p int, stored *structs.NodeUsage) *nodeUsage {
	if len(c.usageSlab) == 0 {
		c.usageSlab = make([]nodeUsage, 32)
	}
	u := &c.usageSlab[0]
	c.usageSlab = c.usageSlab[1:]
	initNodeUsage(u, n)
	var planned []*structs.Allocation
	if p < 0 || c.inPlan[p] {
		planned = c.plan.NodeAllocation[n.ID]
	}
	var drop func(*structs.Allocation) bool
	if len(c.stopped) > 0 || len(planned) > 0 {
		drop = func(a *structs.Allocation) bool { return c.stopped[a.ID] || containsAlloc(planned, a.ID) }
	}
	u.addStored(stored, drop)
	for _, a := range planned {
		if !a.TerminalStatus() {
			u.add(a)
		}
	}
	return u
}

func containsAlloc(allocs []*structs.Allocation, id string) bool {
	for _, a := range allocs {
		if a.ID == id {
			return true
		}
	}
	return false
}

// appendAlloc adds a placement or in-place update to the plan.
func (c *evalContext) appendAlloc(a *structs.Allocation) { c.appendAllocAt(a, -1) }

// appendAllocAt is appendAlloc with the position of the alloc's node in
// c.all, when the caller knows it (-1: not known).
func (c *evalContext) appendAllocAt(a *structs.Allocation, p int) {
	c.plan.AppendAlloc(a)
	c.generation++
	if p < 0 {
		p = -1
		if q, ok := c.position(a.NodeID); ok {
			p = q
		}
	}
	var u *nodeUsage
	if p >= 0 {
		c.inPlan[p] = true
		u = c.usageAtOrNil(p)
	} else {
		u = c.usage[a.NodeID]
	}
	if u != nil {
		u.remove(a.ID)
		if !a.TerminalStatus() {
			u.add(a)
		}
	}
}

// appendStop adds a stop of an existing alloc to the plan.
func (c *evalContext) appendStop(a *structs.Allocation, desc, clientStatus string) {
	c.plan.AppendStoppedAlloc(a, desc, clientStatus)
	c.generation++
	c.stopped[a.ID] = true
	if u := c.cachedUsage(a.NodeID); u != nil {
		u.remove(a.ID)
	}
}

// popStop undoes appendStop, used when the replacement of a destructively
// updated or migrated alloc could not be placed: the old one keeps running.
func (c *evalContext) popStop(a *structs.Allocation) {
	list := c.plan.NodeUpdate[a.NodeID]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].ID == a.ID {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.plan.NodeUpdate, a.NodeID)
	} else {
		c.plan.NodeUpdate[a.NodeID] = list
	}
	delete(c.stopped, a.ID)
	c.generation++
	if u := c.cachedUsage(a.NodeID); u != nil && !a.TerminalStatus() {
		u.add(a)
	}
}

// regexp returns the compiled pattern, compiling each one once per eval.
func (c *evalContext) regexp(pattern string) *regexp.Regexp {
	if re, ok := c.regexps[pattern]; ok {
		return re
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = nil
	}
	c.regexps[pattern] = re
	return re
}

// versionConstraint returns the parsed constraint, parsing it once per eval.
func (c *evalContext) versionConstraint(s string, strict bool) *versionConstraint {
	key := s
	if strict {
		key = "semver:" + s
	}
	if vc, ok := c.versions[key]; ok {
		return vc
	}
	vc, ok := parseVersionConstraint(s, strict)
	if !ok {
		vc = nil
	}
	c.versions[key] = vc
	return vc
}

// startStopwatch starts timing a placement with the injected stopwatch;
// without one the reading is zero (the scheduler reads no real time).
func (c *evalContext) startStopwatch() func() time.Duration {
	if c.stopwatch == nil {
		return func() time.Duration { return 0 }
	}
	return c.stopwatch()
}
