package planapply

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestInjectRejections_DropsHookedNodesWithRefresh(t *testing.T) {
	a := NewApplier(Config{RejectHook: func(*structs.Plan) []string { return []string{"n2", "absent"} }})
	res := &structs.PlanResult{
		NodeAllocation: map[string][]*structs.Allocation{"n1": {{ID: "a1"}}, "n2": {{ID: "a2"}}},
		NodeUpdate:     map[string][]*structs.Allocation{"n2": {{ID: "a3"}}},
	}
	a.injectRejections(&structs.Plan{}, res, 42)
	if _, ok := res.NodeAllocation["n2"]; ok || len(res.NodeUpdate) != 0 || len(res.NodeAllocation["n1"]) != 1 {
		t.Fatalf("result %+v", res)
	}
	if res.RefreshIndex != 42 || len(res.RejectedNodes) != 1 || res.RejectedNodes[0] != "n2" {
		t.Fatalf("refresh %d rejected %v", res.RefreshIndex, res.RejectedNodes)
	}
}
