package state

import (
	"testing"
	"unsafe"

	"github.com/drover-project/drover/internal/structs"
)

// Allocs of one group written together share their resources and the
// metrics of the group's last placement, and the store keeps none of the
// caller's objects.
func TestUpsertAllocs_SharesWhatAGroupHasInCommon(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	caller := job.Copy() // a decoded plan carries its own copy of the job
	a1, a2, a3 := mockAlloc("a1", caller, "n1"), mockAlloc("a2", caller, "n2"), mockAlloc("a3", caller, "n3")
	a3.AllocatedResources.Shared.Ports[0].Value = 25001 // a different grant
	a3.Metrics.NodesEvaluated = 7                       // the group's last placement
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a1, a2, a3}))

	g1, _ := s.AllocByID(nil, "a1")
	g2, _ := s.AllocByID(nil, "a2")
	g3, _ := s.AllocByID(nil, "a3")
	switch {
	case g1.AllocatedResources != g2.AllocatedResources:
		t.Error("equal resources not shared")
	case g1.AllocatedResources == g3.AllocatedResources || g3.AllocatedResources.Shared.Ports[0].Value != 25001:
		t.Error("different resources shared")
	case g1.AllocatedResources == a1.AllocatedResources:
		t.Error("the caller's resources were kept")
	case g1.Metrics != g3.Metrics || g1.Metrics.NodesEvaluated != 7 || g1.Metrics == a3.Metrics:
		t.Errorf("metrics: want one stored copy of the last placement's, got %+v", g1.Metrics)
	}
	versions, _ := s.JobVersionsByID(nil, "default", "web")
	if g1.Job != versions[0] || g3.Job != versions[0] {
		t.Error("allocs hold their own copy of the stored job version")
	}
	if unsafeStringData(g1.JobID) != unsafeStringData(g2.JobID) || unsafeStringData(g1.NodeID) == unsafeStringData(a1.NodeID) {
		t.Error("strings not interned")
	}

	// A client update copies the alloc shallowly: the nested objects stay shared.
	u := &structs.Allocation{ID: "a1", ClientStatus: structs.AllocClientStatusRunning}
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{u}))
	g1b, _ := s.AllocByID(nil, "a1")
	if g1b == g1 || g1b.AllocatedResources != g1.AllocatedResources || g1b.Metrics != g1.Metrics {
		t.Error("client update did not share the stored nested objects")
	}
	if g1.ClientStatus != structs.AllocClientStatusPending {
		t.Error("a stored alloc was modified in place")
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

// Allocs of one group granted different device instances keep their own
// resources (they were shared, so the second alloc showed the first's
// instance).
func TestUpsertAllocs_DifferentDevicesAreNotShared(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	a1, a2 := mockAlloc("a1", job, "n1"), mockAlloc("a2", job, "n1")
	for i, a := range []*structs.Allocation{a1, a2} {
		for _, tr := range a.AllocatedResources.Tasks {
			tr.Devices = []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4", DeviceIDs: []string{[]string{"g0", "g1"}[i]}}}
		}
	}
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a1, a2}))
	g2, _ := s.AllocByID(nil, "a2")
	if len(g2.AllocatedResources.Tasks) == 0 {
		t.Fatal("the mock alloc has no task")
	}
	for _, tr := range g2.AllocatedResources.Tasks {
		if len(tr.Devices) != 1 || tr.Devices[0].DeviceIDs[0] != "g1" {
			t.Fatalf("a2's devices %+v, want g1", tr.Devices[0])
		}
	}
}
