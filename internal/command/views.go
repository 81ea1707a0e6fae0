package command

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Shared tables and blocks used by several commands.

// allocTable prints allocation stubs newest first, Nomad's columns.
func (e *env) allocTable(w io.Writer, allocs []*api.AllocationListStub) {
	if len(allocs) == 0 {
		fmt.Fprintln(w, "No allocations placed")
		return
	}
	sort.Slice(allocs, func(i, j int) bool { return allocs[i].CreateIndex > allocs[j].CreateIndex })
	rows := [][]string{{"ID", "Node ID", "Task Group", "Version", "Desired", "Status", "Created", "Modified"}}
	for _, a := range allocs {
		rows = append(rows, []string{
			e.short(a.ID), e.short(a.NodeID), a.TaskGroup, fmt.Sprint(a.JobVersion),
			a.DesiredStatus, a.ClientStatus, e.whenNanos(a.CreateTime), e.whenNanos(a.ModifyTime),
		})
	}
	writeColumns(w, rows)
}

// evalTable prints evaluations newest first.
func (e *env) evalTable(w io.Writer, evals []*api.Evaluation) {
	if len(evals) == 0 {
		fmt.Fprintln(w, "No evaluations found")
		return
	}
	sort.Slice(evals, func(i, j int) bool { return evals[i].CreateIndex > evals[j].CreateIndex })
	rows := [][]string{{"ID", "Priority", "Triggered By", "Job ID", "Node ID", "Status", "Placement Failures", "Created"}}
	for _, ev := range evals {
		rows = append(rows, []string{
			e.short(ev.ID), fmt.Sprint(ev.Priority), ev.TriggeredBy, ev.JobID, e.short(ev.NodeID),
			ev.Status, fmt.Sprint(len(ev.FailedTGAllocs) > 0), e.whenNanos(ev.CreateTime),
		})
	}
	writeColumns(w, rows)
}

// failedAllocs explains every task group the scheduler could not place,
// in task-group order so output is stable.
func failedAllocs(w io.Writer, failed map[string]*api.AllocationMetric, pre string) {
	groups := make([]string, 0, len(failed))
	for g := range failed {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		m := failed[g]
		fmt.Fprintf(w, "%sTask Group %q (failed to place %d allocation%s):\n", pre, g, m.CoalescedFailures+1, plural(m.CoalescedFailures+1))
		for _, line := range metricLines(m) {
			fmt.Fprintf(w, "%s  * %s\n", pre, line)
		}
	}
}

// metricLines turns an allocation metric into reasons, most general first.
func metricLines(m *api.AllocationMetric) []string {
	var out []string
	if m.NodesEvaluated == 0 {
		out = append(out, "No nodes were eligible for evaluation")
	}
	for dc, n := range sortedCounts(m.NodesAvailable) {
		if n == 0 {
			out = append(out, fmt.Sprintf("No nodes are available in datacenter %q", dc))
		}
	}
	for _, kv := range sortedPairs(m.ClassFiltered) {
		out = append(out, fmt.Sprintf("Class %q: %d nodes excluded by filter", kv.k, kv.v))
	}
	for _, kv := range sortedPairs(m.ConstraintFiltered) {
		out = append(out, fmt.Sprintf("Constraint %q: %d nodes excluded by filter", kv.k, kv.v))
	}
	if m.NodesExhausted > 0 {
		out = append(out, fmt.Sprintf("Resources exhausted on %d nodes", m.NodesExhausted))
	}
	for _, kv := range sortedPairs(m.ClassExhausted) {
		out = append(out, fmt.Sprintf("Class %q exhausted on %d nodes", kv.k, kv.v))
	}
	for _, kv := range sortedPairs(m.DimensionExhausted) {
		out = append(out, fmt.Sprintf("Dimension %q exhausted on %d nodes", kv.k, kv.v))
	}
	for _, q := range m.QuotaExhausted {
		out = append(out, fmt.Sprintf("Quota limit hit %q", q))
	}
	return out
}

type pair struct {
	k string
	v int
}

func sortedPairs(m map[string]int) []pair {
	out := make([]pair, 0, len(m))
	for k, v := range m {
		out = append(out, pair{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	return out
}

// sortedCounts iterates a count map in key order.
func sortedCounts(m map[string]int) func(func(string, int) bool) {
	return func(yield func(string, int) bool) {
		for _, p := range sortedPairs(m) {
			if !yield(p.k, p.v) {
				return
			}
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func joinOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, ",")
}
