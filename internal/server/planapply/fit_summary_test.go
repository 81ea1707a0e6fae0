package planapply

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestFitsBySummary_SameDecisions compares checkNodeFits (the usage
// summary shortcut, then the full check) with the full check alone on
// random nodes, stored allocs, overlays of in-flight plans and plans: host
// ports per address (node reserved ports, group port mappings with and
// without a HostIP, group and task networks), reserved cores, devices,
// memory_max, terminal allocs, allocs stopped, preempted or updated in
// place by the plan, terminal placements. Every decision and rejection
// must be the same; the shortcut must also have decided a fair share.
func TestFitsBySummary_SameDecisions(t *testing.T) {
	shortcuts, total := 0, 0
	collisions := 0 // full-check collisions with only stored allocs claiming
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 3))
		h := newHarness(t)
		small := rng.IntN(2) == 0
		job := mockJob("web", 50)
		h.upsertJob(job)
		node := mockNode("n1")
		node.NodeResources.Networks = []*structs.NetworkResource{{Device: "eth0", IP: "10.0.0.1", MBits: 1000}}
		if rng.IntN(2) == 0 {
			node.ReservedResources = nil
		}
		h.upsertNode(node)
		var stored []*structs.Allocation
		for i := range rng.IntN(6) {
			a := randomFitAlloc(rng, fmt.Sprintf("s%d", i), job, rng.IntN(2) == 0, small)
			if rng.IntN(5) == 0 {
				a.ClientStatus = structs.AllocClientStatusComplete
			}
			stored = append(stored, a)
		}
		if len(stored) > 0 {
			h.upsertAllocs(stored...)
		}
		var snap StateReader = h.store.Snapshot()
		if rng.IntN(2) == 0 {
			ov := newOverlay(snap)
			for m := range rng.IntN(3) {
				res := &structs.PlanResult{NodeAllocation: map[string][]*structs.Allocation{}}
				for i := range 1 + rng.IntN(2) {
					id := fmt.Sprintf("o%d-%d", m, i)
					if len(stored) > 0 && rng.IntN(3) == 0 { // an in-flight in-place update
						id = stored[rng.IntN(len(stored))].ID
					}
					a := randomFitAlloc(rng, id, job, rng.IntN(4) == 0, small)
					if rng.IntN(6) == 0 {
						a.DesiredStatus = structs.AllocDesiredStatusStop
					}
					res.NodeAllocation["n1"] = append(res.NodeAllocation["n1"], a)
				}
				ov.add(&member{result: res})
			}
			snap = ov
		}
		plan := &structs.Plan{Job: job, NodeAllocation: map[string][]*structs.Allocation{},
			NodeUpdate: map[string][]*structs.Allocation{}, NodePreemptions: map[string][]*structs.Allocation{}}
		for _, a := range stored {
			switch rng.IntN(6) {
			case 0:
				plan.NodeUpdate["n1"] = append(plan.NodeUpdate["n1"], stopped(a))
			case 1:
				plan.NodePreemptions["n1"] = append(plan.NodePreemptions["n1"], preempted(a, "p0"))
			case 2: // updated in place, maybe with other resources
				c := a.Copy()
				if rng.IntN(2) == 0 {
					c.AllocatedResources = randomFitAlloc(rng, a.ID, job, rng.IntN(4) == 0, small).AllocatedResources
				}
				plan.NodeAllocation["n1"] = append(plan.NodeAllocation["n1"], c)
			}
		}
		for i := range 1 + rng.IntN(4) {
			a := randomFitAlloc(rng, fmt.Sprintf("p%d", i), job, rng.IntN(4) == 0, small)
			if rng.IntN(8) == 0 {
				a.DesiredStatus = structs.AllocDesiredStatusStop
			}
			plan.NodeAllocation["n1"] = append(plan.NodeAllocation["n1"], a)
		}
		removed := newIDSet(plan.NodeUpdate["n1"], plan.NodePreemptions["n1"], plan.NodeAllocation["n1"])
		want, err := checkNodeFitsByAllocs(snap, plan, node, "n1", removed)
		if err != nil {
			t.Fatal(err)
		}
		got, err := checkNodeFits(snap, plan, node, "n1")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: checkNodeFits %+v, the full check %+v", seed, got, want)
		}
		fits, err := fitsBySummary(snap, plan, node, "n1", removed)
		if err != nil {
			t.Fatal(err)
		}
		if fits && want != nil {
			t.Fatalf("seed %d: the shortcut accepts what the full check rejects: %+v", seed, want)
		}
		if want != nil && want.Reason == ReasonExhausted && (want.Dimension == DimensionPorts ||
			want.Dimension == DimensionCores || want.Dimension == DimensionDevices) {
			collisions++
		}
		total++
		if fits {
			shortcuts++
		}
	}
	if shortcuts < total/10 {
		t.Fatalf("the shortcut decided %d of %d cases: the test no longer exercises it", shortcuts, total)
	}
	if collisions < total/20 {
		t.Fatalf("%d of %d cases collide: the test no longer exercises collisions", collisions, total)
	}
	t.Logf("the shortcut accepted %d of %d cases; %d collide", shortcuts, total, collisions)
}

// randomFitAlloc is a live alloc on n1 of random size (a handful of them
// may or may not fit the 4000 MHz, 8192 MB, 100 GB node), and with
// exclusive claims (ports on the node's and other addresses, some of them
// its reserved port 22, reserved cores, devices) when claims is set; small
// ones always fit, so that collisions alone decide.
func randomFitAlloc(rng *rand.Rand, id string, job *structs.Job, claims, small bool) *structs.Allocation {
	a := mockAlloc(id, job, "n1", int64(100*(1+rng.IntN(12))), int64(256*(1+rng.IntN(10))), int64(1000*rng.IntN(30)))
	if small {
		a = mockAlloc(id, job, "n1", 100, 128, 100)
	}
	task := a.AllocatedResources.Tasks["web"]
	task.MemoryMaxMB = int64(512 * rng.IntN(3))
	if rng.IntN(3) == 0 {
		a.AllocatedResources.Tasks["side"] = &structs.AllocatedTaskResources{CpuShares: int64(50 * rng.IntN(4)), MemoryMB: 64}
	}
	if !claims {
		return a
	}
	ports := []int{22, 8080, 8081, 9000}
	ips := []string{"", "10.0.0.1", "10.0.0.2"}
	switch rng.IntN(3) {
	case 0: // a host port, in one of the three places an alloc claims one
		switch rng.IntN(3) {
		case 0:
			a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: ports[rng.IntN(len(ports))], HostIP: ips[rng.IntN(len(ips))]}}
		case 1:
			task.Networks = []*structs.NetworkResource{{IP: ips[rng.IntN(len(ips))],
				DynamicPorts: []structs.Port{{Label: "a", Value: ports[rng.IntN(len(ports))]}}}}
		case 2:
			a.AllocatedResources.Shared.Networks = []*structs.NetworkResource{{IP: ips[rng.IntN(len(ips))],
				ReservedPorts: []structs.Port{{Label: "b", Value: ports[rng.IntN(len(ports))], HostNetwork: []string{"", "default", "private"}[rng.IntN(3)]}}}}
		}
	case 1:
		task.ReservedCores = []uint16{uint16(rng.IntN(2))}
	case 2:
		task.Devices = []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4", DeviceIDs: []string{fmt.Sprintf("gpu-%d", rng.IntN(2))}}}
	}
	return a
}
