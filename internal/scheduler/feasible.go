package scheduler

import (
	"path"
	"strconv"

	"github.com/drover-project/drover/internal/structs"
)

// Reasons a node is filtered out, as recorded in AllocMetric.ConstraintFiltered
// (constraints from the job spec are recorded as "LTarget Operand RTarget").
const (
	FilterNodeNotReady               = "node not ready"
	FilterNodeIneligible             = "node ineligible"
	FilterNodeDraining               = "node draining"
	FilterConstraintDatacenter       = "datacenter not in job"
	FilterConstraintNodePool         = "node pool mismatch"
	FilterConstraintDrivers          = "missing drivers"
	FilterConstraintDistinctHosts    = "distinct_hosts"
	FilterConstraintDistinctProperty = "distinct_property"
)

// nodeFilter is one feasibility plugin: it passes or rejects a node, with
// the reason recorded in the alloc metrics.
type nodeFilter interface {
	filter(n *structs.Node) (ok bool, reason string)
}

// filterFunc adapts a function to nodeFilter.
type filterFunc func(n *structs.Node) (bool, string)

func (f filterFunc) filter(n *structs.Node) (bool, string) { return f(n) }

type filterResult struct {
	ok     bool
	reason string
}

// runFilters applies filters in order and stops at the first rejection.
func runFilters(filters []nodeFilter, n *structs.Node) filterResult {
	for _, f := range filters {
		if ok, reason := f.filter(n); !ok {
			return filterResult{reason: reason}
		}
	}
	return filterResult{ok: true}
}

// readyFilter rejects nodes that may not take new work.
func readyFilter() nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		switch {
		case n.Status != structs.NodeStatusReady:
			return false, FilterNodeNotReady
		case n.DrainStrategy != nil:
			return false, FilterNodeDraining
		case n.SchedulingEligibility == structs.NodeSchedulingIneligible:
			return false, FilterNodeIneligible
		}
		return true, ""
	})
}

// datacenterFilter keeps nodes in one of the job's datacenters (globs).
func datacenterFilter(job *structs.Job) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		if inDatacenters(job.Datacenters, n.Datacenter) {
			return true, ""
		}
		return false, FilterConstraintDatacenter
	})
}

func inDatacenters(patterns []string, dc string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if p == dc || p == "*" {
			return true
		}
		if ok, err := path.Match(p, dc); err == nil && ok {
			return true
		}
	}
	return false
}

// poolFilter keeps nodes in the job's node pool ("all" matches every pool).
func poolFilter(job *structs.Job) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		if inPool(job, n) {
			return true, ""
		}
		return false, FilterConstraintNodePool
	})
}

func inPool(job *structs.Job, n *structs.Node) bool {
	pool := job.NodePool
	if pool == "" {
		pool = structs.DefaultNodePool
	}
	nodePool := n.NodePool
	if nodePool == "" {
		nodePool = structs.DefaultNodePool
	}
	return pool == structs.AllNodePools || pool == nodePool
}

// driverFilter keeps nodes where every task's driver is detected and
// healthy; nodes that fingerprint drivers only as a `driver.NAME`
// attribute are accepted when it is true.
func driverFilter(tg *structs.TaskGroup) nodeFilter {
	drivers := map[string]bool{}
	for _, t := range tg.Tasks {
		if t.Driver != "" {
			drivers[t.Driver] = true
		}
	}
	return filterFunc(func(n *structs.Node) (bool, string) {
		for d := range drivers {
			if !hasDriver(n, d) {
				return false, FilterConstraintDrivers
			}
		}
		return true, ""
	})
}

func hasDriver(n *structs.Node, name string) bool {
	if info, ok := n.Drivers[name]; ok && info != nil {
		return info.Detected && info.Healthy
	}
	v, ok := n.Attributes["driver."+name]
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// constraintFilter checks node-local constraints (not distinct_*).
func constraintFilter(ctx *evalContext, cons []*structs.Constraint) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		for _, c := range cons {
			if !ctx.checkConstraint(c, n) {
				return false, constraintString(c)
			}
		}
		return true, ""
	})
}

// feasibility is the filter chain of one task group. Filters whose answer
// only depends on the computed class run once per class per eval; the
// rest (unique.* constraints, distinct_*) run per node.
type feasibility struct {
	ctx          *evalContext
	classFilters []nodeFilter
	nodeFilters  []nodeFilter
	classCache   map[string]filterResult
	// byPos remembers, by position in the context's node list, the class
	// answer of nodes already checked (classYes, classNo; 0: not yet), so
	// that a node seen again skips hashing its class.
	byPos []uint8
}

const (
	classYes = 1 + iota
	classNo
	classNoUnnamed // classNo on a node without a node_class: countClass has nothing to count
)

// newFeasibility builds the chain for a group: drivers, then the job's,
// group's and tasks' constraints, then distinct_hosts / distinct_property.
func newFeasibility(ctx *evalContext, job *structs.Job, tg *structs.TaskGroup) *feasibility {
	f := &feasibility{ctx: ctx, classCache: map[string]filterResult{}}
	f.classFilters = append(f.classFilters, driverFilter(tg))
	if needs := networkNeeds(tg); len(needs) > 0 {
		f.classFilters = append(f.classFilters, networkFilter(needs))
	}
	var cached, escaped []*structs.Constraint
	for _, c := range groupConstraints(job, tg) {
		switch {
		case c.Operand == structs.ConstraintDistinctHosts || c.Operand == structs.ConstraintDistinctProperty:
		case escapesClass(c.LTarget) || escapesClass(c.RTarget):
			escaped = append(escaped, c)
		default:
			cached = append(cached, c)
		}
	}
	f.classFilters = append(f.classFilters, constraintFilter(ctx, cached))
	if len(escaped) > 0 {
		ctx.escaped = true
		f.nodeFilters = append(f.nodeFilters, constraintFilter(ctx, escaped))
	}
	if len(hostVolumeClaims(tg)) > 0 {
		f.nodeFilters = append(f.nodeFilters, hostVolumeFilter(tg))
	}
	if names := hostNetworkNames(tg); len(names) > 0 {
		f.nodeFilters = append(f.nodeFilters, hostNetworkFilter(names))
	}
	if asks := deviceAsks(tg); len(asks) > 0 {
		f.nodeFilters = append(f.nodeFilters, deviceFilter(ctx, asks))
	}
	f.nodeFilters = append(f.nodeFilters, distinctFilters(ctx, job, tg)...)
	return f
}

// groupConstraints returns the job's, the group's and its tasks' constraints.
func groupConstraints(job *structs.Job, tg *structs.TaskGroup) []*structs.Constraint {
	out := append([]*structs.Constraint{}, job.Constraints...)
	out = append(out, tg.Constraints...)
	for _, t := range tg.Tasks {
		out = append(out, t.Constraints...)
	}
	return out
}

// feasible runs the chain on a node and records the outcome in m.
func (f *feasibility) feasible(n *structs.Node, m *structs.AllocMetric) bool {
	return f.feasibleAt(n, -1, m)
}

// feasibleAt is feasible with the node's position in the context's node
// list (-1: not known). A node whose class answer byPos holds takes the
// cached path, as it would through classCache: its class was answered
// when the node was first checked.
func (f *feasibility) feasibleAt(n *structs.Node, p int, m *structs.AllocMetric) bool {
	m.NodesEvaluated++
	var res filterResult
	var cached bool
	if p >= 0 && f.byPos != nil && f.byPos[p] != 0 {
		if f.byPos[p] == classNoUnnamed {
			m.NodesFiltered++
			return false // the cached path below, without reading the node
		}
		res.ok, cached = f.byPos[p] == classYes, true
	} else {
		class := f.ctx.classOf(n)
		res, cached = f.classCache[class]
		if !cached {
			res = runFilters(f.classFilters, n)
			f.classCache[class] = res
			f.ctx.markClass(class, res.ok)
		}
		if p >= 0 {
			if f.byPos == nil {
				f.byPos = make([]uint8, len(f.ctx.all))
			}
			switch {
			case res.ok:
				f.byPos[p] = classYes
			case n.NodeClass == "":
				f.byPos[p] = classNoUnnamed
			default:
				f.byPos[p] = classNo
			}
		}
	}
	if !res.ok {
		m.NodesFiltered++
		if cached {
			countClass(&m.ClassFiltered, n)
		} else {
			incr(&m.ConstraintFiltered, res.reason)
		}
		return false
	}
	if res = runFilters(f.nodeFilters, n); !res.ok {
		m.NodesFiltered++
		incr(&m.ConstraintFiltered, res.reason)
		return false
	}
	return true
}

// classFeasible answers from the class cache without recording metrics;
// used to learn which nodes a group could use at all (even spreads).
func (f *feasibility) classFeasible(n *structs.Node) bool {
	class := f.ctx.classOf(n)
	res, cached := f.classCache[class]
	if !cached {
		res = runFilters(f.classFilters, n)
		f.classCache[class] = res
		f.ctx.markClass(class, res.ok)
	}
	return res.ok
}

// countClass counts n under the node class the operator set (node_class),
// as Nomad's metrics do; a node without one is not counted by class. The
// computed class is the cache key, a hash no reader can map to nodes.
func countClass(m *map[string]int, n *structs.Node) {
	if n.NodeClass != "" {
		incr(m, n.NodeClass)
	}
}

func incr(m *map[string]int, key string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[key]++
}
