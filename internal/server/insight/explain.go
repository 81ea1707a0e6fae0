package insight

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// maxReasonNodes is how many node names a reason lists.
const maxReasonNodes = 10

// ExplainOptions narrow an explanation.
type ExplainOptions struct {
	Group string // one group; empty: those with unplaced allocs (all if none)
	Node  string // one node's verdict (ID, ID prefix or name)
	Nodes bool   // every node's verdict
}

// ExplainJob answers why the job's groups are not placed: it runs the
// job's scheduler on the state (nothing written) to learn how many allocs
// of each group stay unplaced, then the scheduler's checks of one more
// alloc on every node (scheduler.DiagnoseGroup), and derives the cheapest
// changes that would place it.
func ExplainJob(st scheduler.State, d Deps, job *structs.Job, opts ExplainOptions) (*structs.JobExplainResponse, error) {
	if opts.Group != "" && job.LookupTaskGroup(opts.Group) == nil {
		return nil, badInput("group: job %q has no task group %q", job.ID, opts.Group)
	}
	unplaced := map[string]int{}
	if !job.Stop && !job.IsMultiInstanceParent() {
		ov := newOverlay(st)
		c, err := run(ov, d, newIDs(d.Seed, "explain/"+job.Namespace+"/"+job.ID), jobEval(newIDs(d.Seed, "explain-eval"), job, structs.EvalTriggerJobRegister, d.now()), false)
		if err != nil {
			return nil, err
		}
		if c.final != nil {
			for g, m := range c.final.FailedTGAllocs {
				unplaced[g] = max(1, m.CoalescedFailures+1)
			}
			for g, n := range c.final.QueuedAllocations {
				if n > 0 {
					unplaced[g] = n
				}
			}
		}
	}
	var groups []string
	switch {
	case opts.Group != "":
		groups = []string{opts.Group}
	case len(unplaced) > 0:
		for _, tg := range job.TaskGroups {
			if unplaced[tg.Name] > 0 {
				groups = append(groups, tg.Name)
			}
		}
	default:
		for _, tg := range job.TaskGroups {
			groups = append(groups, tg.Name)
		}
	}
	out := &structs.JobExplainResponse{JobID: job.ID, Namespace: job.Namespace}
	for _, g := range groups {
		diag, err := scheduler.DiagnoseGroup(st, job, g)
		if err != nil {
			return nil, err
		}
		ge := explainGroup(diag, unplaced[g])
		for _, nd := range diag.Nodes {
			if opts.Nodes || (opts.Node != "" && matchNode(nd.Node, opts.Node)) {
				ge.NodeVerdicts = append(ge.NodeVerdicts, verdict(nd))
			}
		}
		if opts.Node != "" && len(ge.NodeVerdicts) == 0 {
			return nil, badInput("node: no node %q", opts.Node)
		}
		out.Groups = append(out.Groups, ge)
	}
	return out, nil
}

// matchNode matches a node by ID, ID prefix (at least 4) or name.
func matchNode(n *structs.Node, q string) bool {
	return n.ID == q || n.Name == q || (len(q) >= 4 && strings.HasPrefix(n.ID, q))
}

func verdict(nd *scheduler.NodeDiagnosis) *structs.NodeVerdict {
	v := &structs.NodeVerdict{NodeID: nd.Node.ID, Name: nd.Node.Name, Class: nd.Node.NodeClass,
		Datacenter: nd.Node.Datacenter, Fits: nd.Fits(), Free: nd.Free}
	for _, f := range nd.Failures {
		v.Failures = append(v.Failures, f.Detail)
	}
	return v
}

// explainGroup aggregates the node diagnoses: first reasons by count, and
// the fixes.
func explainGroup(d *scheduler.GroupDiagnosis, unplaced int) *structs.GroupExplanation {
	ge := &structs.GroupExplanation{Group: d.Group.Name, Unplaced: unplaced, Ask: d.Ask, Nodes: len(d.Nodes)}
	byKey := map[string]*structs.ExplainReason{}
	var order []string
	for _, nd := range d.Nodes {
		if nd.Fits() {
			ge.Fit++
			continue
		}
		f := nd.Failures[0]
		r := byKey[f.Key]
		if r == nil {
			r = &structs.ExplainReason{Step: f.Step, Reason: f.Key, Classes: map[string]int{}, Example: nd.Node.Name + ": " + f.Detail}
			byKey[f.Key] = r
			order = append(order, f.Key)
		}
		r.Count++
		r.Classes[nd.Node.NodeClass]++
		if len(r.Nodes) < maxReasonNodes {
			r.Nodes = append(r.Nodes, nd.Node.Name)
		}
	}
	for _, k := range order {
		ge.Reasons = append(ge.Reasons, byKey[k])
	}
	slices.SortStableFunc(ge.Reasons, func(a, b *structs.ExplainReason) int { return cmp.Compare(b.Count, a.Count) })
	ge.Fixes = fixes(d)
	return ge
}

// fix is a candidate change and how many nodes it would open.
type fix struct {
	opens int
	text  string
}

// placementSteps are the checks that depend on what runs on the node (the
// rest say whether the node is eligible for the group at all).
var placementSteps = map[string]bool{scheduler.StepDistinctHosts: true, scheduler.StepDistinctProperty: true,
	scheduler.StepResources: true, scheduler.StepPorts: true}

// fixes derives the changes that would place one more alloc, cheapest
// (the one opening the most nodes) first.
func fixes(d *scheduler.GroupDiagnosis) []string {
	var eligible, fit []*scheduler.NodeDiagnosis
	sole := map[string]int{}     // failure key -> nodes where it is the only one
	excludes := map[string]int{} // failure key -> nodes it fails
	example := map[string]*scheduler.Failure{}
	for _, nd := range d.Nodes {
		keys := map[string]bool{}
		onlyPlacement := true
		for _, f := range nd.Failures {
			if !keys[f.Key] {
				keys[f.Key] = true
				excludes[f.Key]++
				if example[f.Key] == nil {
					example[f.Key] = f
				}
			}
			if !placementSteps[f.Step] {
				onlyPlacement = false
			}
		}
		if len(keys) == 1 {
			for k := range keys {
				sole[k]++
			}
		}
		if onlyPlacement {
			eligible = append(eligible, nd)
		}
		if nd.Fits() {
			fit = append(fit, nd)
		}
	}
	var out []fix
	total := len(d.Nodes)
	if len(fit) > 0 {
		out = append(out, fix{opens: total + 1, text: fmt.Sprintf("%d of %d nodes take one more alloc now (e.g. %s); a new evaluation places it", len(fit), total, fit[0].Node.Name)})
	}
	if total == 0 {
		return []string{"the cluster has no nodes"}
	}
	count := d.Group.Count
	if hasDistinctHosts(d) && count > len(eligible) && len(eligible) > 0 {
		out = append(out, fix{opens: total, text: fmt.Sprintf("count %d with distinct_hosts on %d eligible nodes: lower the count to %d or make %d more nodes eligible", count, len(eligible), len(eligible), count-len(eligible))})
	}
	// Resources: on eligible nodes, the largest free amount per dimension,
	// then whether evicting lower-priority allocs would make room.
	var needs []string
	resOpens := 0
	short := false
	for _, dim := range []string{"cpu", "cores", "memory", "disk"} {
		if excludes[dim] == 0 {
			continue
		}
		short = true
		var best *scheduler.NodeDiagnosis
		var asked, bestFree int64
		for _, nd := range eligible {
			for _, f := range nd.Failures {
				if f.Step == scheduler.StepResources && f.Dimension == dim {
					asked = f.Asked
				}
			}
			free := freeOf(nd, dim)
			if best == nil || free > bestFree {
				best, bestFree = nd, free
			}
		}
		resOpens = max(resOpens, sole[dim])
		if best == nil || asked == 0 || bestFree >= asked {
			continue // some node has enough of this one: see below
		}
		needs = append(needs, fmt.Sprintf("needs %s %s; the largest free is %s on node %s", scheduler.Amount(dim, asked), dim, scheduler.Amount(dim, max(bestFree, 0)), best.Node.Name))
	}
	if short && len(needs) == 0 && len(eligible) > 0 {
		// Each dimension fits somewhere, never all at once: show the node
		// short of the least.
		var best *scheduler.NodeDiagnosis
		var bestShort float64
		for _, nd := range eligible {
			var sum float64
			res := false
			for _, f := range nd.Failures {
				if f.Step == scheduler.StepResources {
					sum += float64(f.Asked-f.Free) / float64(max(f.Asked, 1))
					res = true
				}
			}
			if res && (best == nil || sum < bestShort) {
				best, bestShort = nd, sum
			}
		}
		if best != nil {
			var parts []string
			for _, f := range best.Failures {
				if f.Step == scheduler.StepResources {
					parts = append(parts, fmt.Sprintf("%s %s free of %s", f.Dimension, scheduler.Amount(f.Dimension, max(f.Free, 0)), scheduler.Amount(f.Dimension, f.Asked)))
				}
			}
			needs = append(needs, fmt.Sprintf("no eligible node has all of %s at once; the closest is node %s (%s)", askString(d.Ask), best.Node.Name, strings.Join(parts, ", ")))
		}
	}
	if len(needs) > 0 {
		would := 0
		for _, nd := range eligible {
			ok := len(nd.Failures) > 0
			for _, f := range nd.Failures {
				if f.Step != scheduler.StepResources || f.Free+f.Preemptible < f.Asked {
					ok = false
				}
			}
			if ok {
				would++
			}
		}
		state := "off"
		if d.PreemptionEnabled {
			state = "on"
		}
		prio := d.Job.Priority - d.PreemptionDelta
		if would > 0 {
			needs = append(needs, fmt.Sprintf("%d nodes would fit if allocs of priority <= %d were preempted (preemption is %s for %s jobs)", would, prio, state, d.Job.Type))
		} else {
			needs = append(needs, fmt.Sprintf("preemption would not help: no node fits even with every alloc of priority <= %d evicted (preemption is %s for %s jobs)", prio, state, d.Job.Type))
		}
		out = append(out, fix{opens: max(resOpens, would), text: strings.Join(needs, "; ")})
	}
	// Ports, node eligibility, constraints, drivers, datacenters, pools.
	for key, n := range excludes {
		f := example[key]
		switch f.Step {
		case scheduler.StepPorts:
			holders := map[string]int{}
			for _, nd := range eligible {
				for _, g := range nd.Failures {
					if g.Key == key {
						if g.Holder != nil {
							holders["job "+g.Holder.JobID]++
						} else {
							holders["the node's reserved ports"]++
						}
					}
				}
			}
			text := fmt.Sprintf("%s is taken on %d of %d eligible nodes (by %s); ", key, n, len(eligible), joinCounts(holders))
			if sole[key] > 0 {
				text += fmt.Sprintf("a dynamic port, or freeing it, opens %d nodes", sole[key])
			} else {
				text += "freeing it alone opens no node"
			}
			out = append(out, fix{opens: sole[key], text: text})
		case scheduler.StepConstraint, scheduler.StepDriver, scheduler.StepDatacenter, scheduler.StepPool, scheduler.StepHostVolume, scheduler.StepHostNetwork, scheduler.StepDevice, scheduler.StepStatus, scheduler.StepDistinctProperty:
			what := key
			if f.Step == scheduler.StepConstraint {
				what = "constraint `" + strings.TrimPrefix(key, "constraint ") + "`"
				values := map[string]int{}
				for _, nd := range d.Nodes {
					for _, g := range nd.Failures {
						if g.Key == key {
							v := g.NodeValue
							if !g.ValueSet {
								v = "unset"
							}
							values[v]++
						}
					}
				}
				what += " (nodes have " + joinCounts(values) + ")"
			}
			scope := fmt.Sprintf("excludes %d of %d nodes", n, total)
			if n == total {
				scope = fmt.Sprintf("excludes all %d nodes", n)
			}
			text := fmt.Sprintf("%s %s", what, scope)
			if sole[key] > 0 {
				text += fmt.Sprintf("; without it %d more nodes would take the alloc", sole[key])
			}
			out = append(out, fix{opens: sole[key], text: text})
		}
	}
	slices.SortStableFunc(out, func(a, b fix) int { return cmp.Or(cmp.Compare(b.opens, a.opens), cmp.Compare(a.text, b.text)) })
	texts := make([]string, len(out))
	for i, f := range out {
		texts[i] = f.text
	}
	return texts
}

// askString is "500 MHz cpu, 256 MB memory" (the dimensions asked).
func askString(a structs.ComparableResources) string {
	var parts []string
	if a.CpuShares > 0 {
		parts = append(parts, scheduler.Amount("cpu", a.CpuShares)+" cpu")
	}
	if a.Cores > 0 {
		parts = append(parts, scheduler.Amount("cores", int64(a.Cores)))
	}
	if a.MemoryMB > 0 {
		parts = append(parts, scheduler.Amount("memory", a.MemoryMB)+" memory")
	}
	if a.DiskMB > 0 {
		parts = append(parts, scheduler.Amount("disk", a.DiskMB)+" disk")
	}
	return strings.Join(parts, ", ")
}

func hasDistinctHosts(d *scheduler.GroupDiagnosis) bool {
	var cons []*structs.Constraint
	cons = append(cons, d.Job.Constraints...)
	cons = append(cons, d.Group.Constraints...)
	for _, t := range d.Group.Tasks {
		cons = append(cons, t.Constraints...)
	}
	for _, c := range cons {
		if c.Operand == structs.ConstraintDistinctHosts && (c.RTarget == "" || c.RTarget == "true") {
			return true
		}
	}
	return false
}

func freeOf(nd *scheduler.NodeDiagnosis, dim string) int64 {
	switch dim {
	case "cpu":
		return nd.Free.CpuShares
	case "cores":
		return int64(nd.Free.Cores)
	case "memory":
		return nd.Free.MemoryMB
	}
	return nd.Free.DiskMB
}

// joinCounts formats {"linux": 40, "darwin": 2} as "linux x40, darwin x2",
// most first.
func joinCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	parts := make([]string, 0, len(keys))
	for i, k := range keys {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s x%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
