package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func allocWith(id string, cpu int64, ports ...int) *structs.Allocation {
	var reserved []structs.Port
	for _, p := range ports {
		reserved = append(reserved, structs.Port{Label: "p", Value: p})
	}
	return &structs.Allocation{ID: id, DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		AllocatedResources: &structs.AllocatedResources{
			Tasks:  map[string]*structs.AllocatedTaskResources{"t": {CpuShares: cpu, MemoryMB: 10}},
			Shared: structs.AllocatedSharedResources{Networks: []*structs.NetworkResource{{ReservedPorts: reserved}}},
		}}
}

func TestInvariants_CatchOvercommitAndPortClash(t *testing.T) {
	n := &structs.Node{Name: "n1", NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: 1000}, MemoryMB: 1000, DiskMB: 1000}}
	if err := checkNodeFit(n, []*structs.Allocation{allocWith("a", 600), allocWith("b", 300)}); err != nil {
		t.Fatalf("fitting allocs flagged: %v", err)
	}
	if err := checkNodeFit(n, []*structs.Allocation{allocWith("a", 600), allocWith("b", 600)}); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Fatalf("over-commit not caught: %v", err)
	}
	stopped := allocWith("c", 600, 8080)
	stopped.DesiredStatus = structs.AllocDesiredStatusStop
	if err := checkStaticPorts(n, []*structs.Allocation{allocWith("a", 1, 8080), stopped}); err != nil {
		t.Fatalf("a stopped alloc's port flagged: %v", err)
	}
	if err := checkStaticPorts(n, []*structs.Allocation{allocWith("a", 1, 8080), allocWith("b", 1, 8080)}); err == nil || !strings.Contains(err.Error(), "8080") {
		t.Fatalf("port clash not caught: %v", err)
	}
}

func TestInvariants_HoldAfterEveryStepOfAStory(t *testing.T) {
	s := newTestSim(t, 3)
	for _, n := range []string{"n1", "n2"} {
		_, err := s.AddNode(NodeSpec{Name: n, CPU: 2000})
		must(t, err)
	}
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 6, CPU: 500})) // 8 fit, 2 nodes x 4
	must(t, s.RegisterJob(JobSpec{Name: "big", Count: 4, CPU: 900})) // does not all fit: blocked
	must(t, s.MissHeartbeats("n2"))
	must(t, s.AdvanceTime(time.Minute))
	must(t, s.Resume("n2"))
	must(t, s.AdvanceTime(time.Minute))
	must(t, s.CheckInvariants())
}
