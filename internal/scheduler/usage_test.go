package scheduler

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestNodeUsage_SummaryMatchesAllocs checks that a node's usage built from
// the store's summary less the plan's stops and replacements (addStored)
// is the usage built, as before the summary existed, by adding each kept
// stored alloc: same allocs in the same order, resources, cores and port
// counts, including after later plan changes (remove, add).
func TestNodeUsage_SummaryMatchesAllocs(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := &structs.Node{ID: "n1", NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: 8000, TotalCpuCores: 4}, MemoryMB: 8000},
			ReservedResources: &structs.NodeReservedResources{ReservedPorts: "22,25000"}}
		var stored []*structs.Allocation
		for i := range rng.IntN(8) {
			stored = append(stored, usageAlloc(rng, fmt.Sprintf("a%d", i)))
		}
		drop := map[string]bool{}
		for _, a := range stored {
			if rng.IntN(3) == 0 {
				drop[a.ID] = true
			}
		}
		var dropFn func(*structs.Allocation) bool
		if len(drop) > 0 || rng.IntN(2) == 0 {
			dropFn = func(a *structs.Allocation) bool { return drop[a.ID] }
		}

		want := newNodeUsage(n)
		for _, a := range stored {
			if !drop[a.ID] {
				want.add(a)
			}
		}
		got := newNodeUsage(n)
		got.addStored(structs.NewNodeUsage(n.ID, stored), dropFn)
		compareUsage(t, seed, "built", want, got)

		// later plan changes apply to both alike
		for i := range 3 {
			if len(want.allocs) > 0 && rng.IntN(2) == 0 {
				id := want.allocs[rng.IntN(len(want.allocs))].ID
				want.remove(id)
				got.remove(id)
			} else {
				a := usageAlloc(rng, fmt.Sprintf("p%d", i))
				want.add(a)
				got.add(a)
			}
			compareUsage(t, seed, fmt.Sprintf("change %d", i), want, got)
		}
	}
}

func usageAlloc(rng *rand.Rand, id string) *structs.Allocation {
	task := &structs.AllocatedTaskResources{CpuShares: int64(100 * rng.IntN(5)), MemoryMB: int64(64 * rng.IntN(5))}
	if rng.IntN(3) == 0 {
		task.ReservedCores = []uint16{uint16(rng.IntN(4))}
	}
	if rng.IntN(2) == 0 {
		task.Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "x", Value: 25000 + rng.IntN(3)}}}}
	}
	return &structs.Allocation{ID: id, NodeID: "n1", JobID: "j", TaskGroup: "g", DesiredStatus: structs.AllocDesiredStatusRun,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{"t": task},
			Shared: structs.AllocatedSharedResources{DiskMB: int64(rng.IntN(100))}}}
}

func compareUsage(t *testing.T, seed uint64, when string, want, got *nodeUsage) {
	t.Helper()
	ids := func(u *nodeUsage) []string {
		var out []string
		for _, a := range u.allocs {
			out = append(out, a.ID)
		}
		return out
	}
	switch {
	case !slices.Equal(ids(want), ids(got)):
		t.Fatalf("seed %d %s: allocs %v, want %v", seed, when, ids(got), ids(want))
	case want.used != got.used:
		t.Fatalf("seed %d %s: used %+v, want %+v", seed, when, got.used, want.used)
	case !maps.Equal(want.cores, got.cores):
		t.Fatalf("seed %d %s: cores %v, want %v", seed, when, got.cores, want.cores)
	case !maps.Equal(want.ports, got.ports):
		t.Fatalf("seed %d %s: ports %v, want %v", seed, when, got.ports, want.ports)
	}
}
