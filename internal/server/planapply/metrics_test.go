package planapply

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A follower's compact plan carries a group's metrics on one placement
// only. When that placement's node is rejected, the group's placements
// that commit are still stored with the metrics.
func TestApplier_CompactPlanKeepsGroupMetricsWhenTheirNodeIsRejected(t *testing.T) {
	h := newHarness(t)
	job := mockJob("web", 50)
	setupNodes(h, job, "n1", "n2")
	h.upsertAllocs(mockAlloc("big", job, "n2", 3900, 100, 100))

	plan := h.plan("eval-1", job)
	placed := []*structs.Allocation{mockAlloc("p1", job, "n1", 500, 100, 100), mockAlloc("p2", job, "n2", 500, 100, 100)}
	for i, a := range placed {
		a.Metrics = &structs.AllocMetric{NodesEvaluated: i + 1}
	}
	addTo(&plan.NodeAllocation, placed...)
	compact := plan.Compact()
	if compact.NodeAllocation["n1"][0].Metrics != nil || compact.NodeAllocation["n2"][0].Metrics == nil {
		t.Fatal("the compact plan should carry the group's metrics on n2's placement only")
	}

	res, err := h.submit(compact)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RejectedNodes) != 1 || res.RejectedNodes[0] != "n2" {
		t.Fatalf("rejected %v, want n2", res.RejectedNodes)
	}
	a := h.alloc("p1")
	if a == nil || a.Metrics == nil || a.Metrics.NodesEvaluated != 2 {
		t.Fatalf("committed p1 stored with metrics %+v, want the group's (from p2)", a)
	}
	if compact.NodeAllocation["n1"][0].Metrics != nil {
		t.Fatal("the applier changed the submitted plan's placement")
	}
}
