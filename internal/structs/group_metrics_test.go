package structs

import (
	"testing"
)

// Only the last alloc of each group in an entry keeps its placement
// metrics, the first of the list included in the thinning; allocs
// without metrics are left alone, and the plan's own allocs are not
// changed (they are copied before the metrics are dropped).
func TestKeepLastGroupMetrics(t *testing.T) {
	withMetrics := func(id, group string) *Allocation {
		return &Allocation{ID: id, Namespace: "default", JobID: "web", TaskGroup: group,
			Metrics: &AllocMetric{NodesEvaluated: 3}}
	}
	first, bare, other, last := withMetrics("a1", "g"), &Allocation{ID: "a2", JobID: "web", TaskGroup: "g"},
		withMetrics("b1", "h"), withMetrics("a3", "g")
	allocs := []*Allocation{first, bare, other, last}
	KeepLastGroupMetrics(allocs)

	want := map[string]bool{"a1": false, "a2": false, "b1": true, "a3": true} // has metrics after
	for _, a := range allocs {
		if got := a.Metrics != nil; got != want[a.ID] {
			t.Errorf("alloc %s keeps metrics = %v, want %v", a.ID, got, want[a.ID])
		}
	}
	if first.Metrics == nil {
		t.Error("the plan's own alloc lost its metrics: it must be copied first")
	}
	if allocs[1] != bare {
		t.Error("an alloc without metrics was copied")
	}
}
