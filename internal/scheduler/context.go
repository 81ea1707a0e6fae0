package scheduler

import (
	"math/rand/v2"
	"regexp"
	"time"

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

	usage    map[string]*nodeUsage // node ID -> usage, computed on first use
	classes  map[string]string     // node ID -> computed class, when not stored
	eligible map[string]bool       // computed class -> feasible for some group
	escaped  bool                  // some constraint escaped the class cache
	stopped  map[string]bool       // alloc IDs the plan stops or preempts

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

// nodeUsage returns what the node's proposed allocs (stored, minus the
// plan's stops, plus the plan's placements) use, computing it once. The
// stored part is the state store's per-node summary (one read, not the
// node's allocs).
func (c *evalContext) nodeUsage(n *structs.Node) (*nodeUsage, error) {
	if u, ok := c.usage[n.ID]; ok {
		return u, nil
	}
	stored, err := c.state.NodeUsage(nil, n.ID)
	if err != nil {
		return nil, err
	}
	u := newNodeUsage(n)
	planned := c.plan.NodeAllocation[n.ID]
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
	c.usage[n.ID] = u
	return u, nil
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
func (c *evalContext) appendAlloc(a *structs.Allocation) {
	c.plan.AppendAlloc(a)
	c.generation++
	if u, ok := c.usage[a.NodeID]; ok {
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
	if u, ok := c.usage[a.NodeID]; ok {
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
	if u, ok := c.usage[a.NodeID]; ok && !a.TerminalStatus() {
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
