package scheduler

import (
	"slices"
	"strconv"

	"github.com/drover-project/drover/internal/structs"
)

// distinctFilters builds the distinct_hosts and distinct_property filters
// of a group. A job-level constraint counts every alloc of the job; a group
// or task level one only the group's. They depend on the plan being built,
// so they are never cached per class.
func distinctFilters(ctx *evalContext, job *structs.Job, tg *structs.TaskGroup) []nodeFilter {
	var out []nodeFilter
	add := func(cons []*structs.Constraint, scope string) {
		for _, c := range cons {
			switch c.Operand {
			case structs.ConstraintDistinctHosts:
				if c.RTarget == "" || parseBoolDefault(c.RTarget, true) {
					out = append(out, distinctHostsFilter(ctx, job.ID, scope))
				}
			case structs.ConstraintDistinctProperty:
				out = append(out, distinctPropertyFilter(ctx, job.ID, scope, c))
			}
		}
	}
	add(job.Constraints, "")
	add(tg.Constraints, tg.Name)
	for _, t := range tg.Tasks {
		add(t.Constraints, tg.Name)
	}
	return out
}

func parseBoolDefault(s string, def bool) bool {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return def
	}
	return b
}

// distinctHostsFilter rejects nodes that already hold a proposed alloc of
// the job (scope "") or of the group.
func distinctHostsFilter(ctx *evalContext, jobID, scope string) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		u, err := ctx.nodeUsage(n)
		if err != nil || u.countGroup(jobID, scope) > 0 {
			return false, FilterConstraintDistinctHosts
		}
		return true, ""
	})
}

// distinctPropertyFilter rejects nodes whose value of the property already
// has `limit` (RTarget, default 1) proposed allocs of the job or group.
func distinctPropertyFilter(ctx *evalContext, jobID, scope string, c *structs.Constraint) nodeFilter {
	limit := 1
	if v, err := strconv.Atoi(c.RTarget); err == nil && v > 0 {
		limit = v
	}
	return filterFunc(func(n *structs.Node) (bool, string) {
		val, ok := resolveTarget(c.LTarget, n)
		if !ok {
			return false, FilterConstraintDistinctProperty
		}
		if ctx.propertyCount(c.LTarget, jobID, scope, val) >= limit {
			return false, FilterConstraintDistinctProperty
		}
		return true, ""
	})
}

// propertyCount counts the proposed allocs of the job (or group) on nodes
// whose property has value val. The counts are rebuilt only when the plan
// changed since the last call.
func (c *evalContext) propertyCount(target, jobID, scope, val string) int {
	key := target + "\x00" + scope
	pc, ok := c.propCounts[key]
	if !ok || pc.generation != c.generation {
		pc = propertyCounts{generation: c.generation, counts: map[string]int{}}
		for _, a := range c.proposedJobAllocs(jobID) {
			if scope != "" && a.TaskGroup != scope {
				continue
			}
			if n := c.nodes[a.NodeID]; n != nil {
				if v, ok := resolveTarget(target, n); ok {
					pc.counts[v]++
				}
			}
		}
		c.propCounts[key] = pc
	}
	return pc.counts[val]
}

type propertyCounts struct {
	generation int
	counts     map[string]int
}

// proposedJobAllocs returns the job's allocs as the plan would leave them:
// stored non-terminal ones it does not stop, plus its placements.
func (c *evalContext) proposedJobAllocs(jobID string) []*structs.Allocation {
	var out []*structs.Allocation
	planned := map[string]bool{}
	for _, allocs := range c.plan.NodeAllocation {
		for _, a := range allocs {
			if a.JobID == jobID && !a.TerminalStatus() {
				out = append(out, a)
			}
			planned[a.ID] = true
		}
	}
	for _, a := range c.jobAllocs {
		if !a.TerminalStatus() && !c.stopped[a.ID] && !planned[a.ID] {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *structs.Allocation) int { return cmpString(a.ID, b.ID) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
