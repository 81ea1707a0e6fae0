package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestEachNodeUsage checks that the scan yields, in node ID order, the
// very values NodeUsage returns node by node, on the store and on a
// snapshot, and stops when asked.
func TestEachNodeUsage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newStore(t)
	var nodes []string
	for i := range 12 {
		id := fmt.Sprintf("n%02d", (i*7)%12) // registered out of order
		nodes = append(nodes, id)
		must(t, s.UpsertNode(uint64(i+1), mockNode(id)))
	}
	job := mockJob("web")
	must(t, s.UpsertJob(20, 0, job))
	job, _ = s.JobByID(nil, job.Namespace, job.ID)
	var allocs []*structs.Allocation
	for i := range 30 {
		allocs = append(allocs, randomAlloc(rng, fmt.Sprintf("a%02d", i), job, nodes[:9]))
	}
	must(t, s.UpsertAllocs(30, allocs))
	for _, r := range []reader{s.reader, s.Snapshot().reader} {
		var got []*structs.NodeUsage
		must(t, r.EachNodeUsage(nil, func(u *structs.NodeUsage) bool { got = append(got, u); return true }))
		var want []*structs.NodeUsage
		for _, id := range slices.Sorted(slices.Values(nodes)) {
			u, err := r.NodeUsage(nil, id)
			must(t, err)
			if u != nil {
				want = append(want, u)
			}
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("scan gave %d usages, want the %d NodeUsage returns in ID order", len(got), len(want))
		}
		if !slices.IsSortedFunc(got, func(a, b *structs.NodeUsage) int { return strings.Compare(a.NodeID, b.NodeID) }) {
			t.Fatal("scan is not in node ID order")
		}
		n := 0
		must(t, r.EachNodeUsage(nil, func(*structs.NodeUsage) bool { n++; return n < 2 }))
		if n != 2 {
			t.Fatalf("scan went on after fn returned false: %d calls", n)
		}
	}
}
