package state

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestNodeUsage_MatchesRecomputation drives random sequences of alloc
// writes (placements, plan results with stops and preemptions, in-place
// updates with new resources or another node, client reports, GC deletes,
// node deletes) and checks after every write that each node's stored usage
// equals a recomputation from the stored allocs, and after the sequence
// that a snapshot restore rebuilds the same usages.
func TestNodeUsage_MatchesRecomputation(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			s, nodes, job := randomWriteStore(t)
			var ids []string
			index := uint64(100)
			for step := range 300 {
				index++
				op := randomAllocWrite(t, s, rng, &ids, nodes, job, index, true)
				checkNodeUsage(t, s.reader, fmt.Sprintf("step %d (op %d)", step, op))
				checkJobsRunning(t, s)
			}
			var buf bytes.Buffer
			must(t, s.Persist(&buf))
			restored := newStore(t)
			must(t, restored.Restore(&buf))
			checkNodeUsage(t, restored.reader, "after restore")
		})
	}
}

// randomAllocWrite makes one random write of allocs (placements, plan
// results with stops and preemptions, in-place updates with new resources
// or another node, client reports, GC deletes, node deletes, and with
// failing a write that fails) and returns which.
func randomAllocWrite(t *testing.T, s *StateStore, rng *rand.Rand, idsp *[]string, nodes []string, job *structs.Job, index uint64, failing bool) int {
	t.Helper()
	ids := *idsp
	defer func() { *idsp = ids }()
	op := rng.IntN(8)
	if !failing && op == 7 {
		op = 0
	}
	if len(ids) == 0 {
		op = 0
	}
	switch op {
	case 0: // place a few new allocs
		var allocs []*structs.Allocation
		for range 1 + rng.IntN(3) {
			id := fmt.Sprintf("a%03d", len(ids))
			ids = append(ids, id)
			allocs = append(allocs, randomAlloc(rng, id, job, nodes))
		}
		must(t, s.UpsertAllocs(index, allocs))
	case 1: // stop or evict through a plan result, placing one more
		id := fmt.Sprintf("a%03d", len(ids))
		ids = append(ids, id)
		stop := storedCopy(t, s, ids[rng.IntN(len(ids)-1)])
		stop.DesiredStatus = structs.AllocDesiredStatusStop
		req := &structs.ApplyPlanResultsRequest{Job: job, AllocsStopped: []*structs.Allocation{stop},
			AllocsUpdated: []*structs.Allocation{randomAlloc(rng, id, job, nodes)}}
		if rng.IntN(2) == 0 {
			ev := storedCopy(t, s, ids[rng.IntN(len(ids)-1)])
			ev.DesiredStatus = structs.AllocDesiredStatusEvict
			req.AllocsPreempted = []*structs.Allocation{ev}
		}
		must(t, s.UpsertPlanResults(index, req))
	case 2: // in-place update: new resources, maybe another node
		a := storedCopy(t, s, ids[rng.IntN(len(ids))])
		fresh := randomAlloc(rng, a.ID, job, nodes)
		a.AllocatedResources = fresh.AllocatedResources
		if rng.IntN(3) == 0 {
			a.NodeID = fresh.NodeID
		}
		must(t, s.UpsertAllocs(index, []*structs.Allocation{a}))
	case 3: // the server stops one
		a := storedCopy(t, s, ids[rng.IntN(len(ids))])
		a.DesiredStatus = structs.AllocDesiredStatusStop
		must(t, s.UpsertAllocs(index, []*structs.Allocation{a}))
	case 4: // a client report, terminal or not
		statuses := []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete,
			structs.AllocClientStatusFailed, structs.AllocClientStatusLost, structs.AllocClientStatusPending}
		u := &structs.Allocation{ID: ids[rng.IntN(len(ids))], ClientStatus: statuses[rng.IntN(len(statuses))]}
		must(t, s.UpdateAllocsFromClient(index, []*structs.Allocation{u}))
	case 5: // garbage collection, live or not
		must(t, s.DeleteEvals(index, nil, []string{ids[rng.IntN(len(ids))], "never-stored"}))
	case 6: // a node deleted (its allocs stay until GC), or registered again
		id := nodes[rng.IntN(len(nodes))]
		view := s.reader // what the write will see: the open batch's state, if any
		if b := s.activeBatch(); b != nil {
			view = b.View().reader
		}
		if n, _ := view.NodeByID(nil, id); n != nil {
			must(t, s.DeleteNodes(index, []string{id}))
		} else {
			must(t, s.UpsertNode(index, mockNode(id)))
		}
	case 7: // a write that fails: nothing of it may stay
		a := randomAlloc(rng, "bad", job, nodes)
		err := s.write(index, func(tx *writeTxn) error {
			if err := tx.upsertAlloc(tx.storedAlloc(a)); err != nil {
				return err
			}
			return fmt.Errorf("fail on purpose")
		})
		if err == nil {
			t.Fatal("the failing write succeeded")
		}
	}
	return op
}

// randomAlloc is a live alloc on a random node with random CPU, memory,
// memory_max, disk, reserved cores and ports (some shared between allocs,
// some repeated within one).
func randomAlloc(rng *rand.Rand, id string, job *structs.Job, nodes []string) *structs.Allocation {
	a := mockAlloc(id, job, nodes[rng.IntN(len(nodes))])
	task := &structs.AllocatedTaskResources{CpuShares: int64(100 * rng.IntN(10)), MemoryMB: int64(64 * rng.IntN(8)),
		MemoryMaxMB: int64(128 * rng.IntN(3))}
	if rng.IntN(3) == 0 {
		task.ReservedCores = []uint16{uint16(rng.IntN(4)), uint16(rng.IntN(4))}
	}
	if rng.IntN(3) == 0 {
		task.Devices = []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4",
			DeviceIDs: []string{fmt.Sprintf("gpu-%d", rng.IntN(4)), fmt.Sprintf("gpu-%d", 4+rng.IntN(4))}}}
	}
	if rng.IntN(2) == 0 {
		p := 20000 + rng.IntN(5)
		task.Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "a", Value: p}, {Label: "b", Value: p}}}}
	}
	a.AllocatedResources = &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{"web": task, "side": {CpuShares: 50}},
		Shared: structs.AllocatedSharedResources{DiskMB: int64(rng.IntN(500)), Ports: []structs.AllocatedPortMapping{{Label: "http", Value: 25000 + rng.IntN(3)}}}}
	return a
}

func storedCopy(t *testing.T, s *StateStore, id string) *structs.Allocation {
	t.Helper()
	a, err := s.AllocByID(nil, id)
	must(t, err)
	if a == nil {
		// garbage collected: write it again as a new placement
		return mockAlloc(id, mockJob("web"), "n1")
	}
	return a.Copy()
}

// checkNodeUsage compares every stored usage row with a recomputation from
// the stored allocs.
func checkNodeUsage(t *testing.T, r reader, when string) {
	t.Helper()
	allocs, err := r.Allocs(nil, "*")
	must(t, err)
	want := map[string]*structs.NodeUsage{}
	for _, a := range allocs {
		if a.NodeID != "" && want[a.NodeID] == nil {
			if u := structs.NewNodeUsage(a.NodeID, allocs); !u.Empty() {
				want[a.NodeID] = u
			}
		}
	}
	it, err := r.txn().Get(TableNodeUsage, "id")
	must(t, err)
	got := map[string]*structs.NodeUsage{}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		u := raw.(*structs.NodeUsage)
		got[u.NodeID] = u
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		viaRead, err := r.NodeUsage(nil, id)
		must(t, err)
		if diff := usageDiff(want[id], viaRead); diff != "" {
			t.Fatalf("%s: node %s: %s", when, id, diff)
		}
	}
	for id := range got {
		if want[id] == nil {
			t.Fatalf("%s: node %s has a usage row but no live allocs: %+v", when, id, got[id])
		}
	}
	checkAllocsByNode(t, r, allocs, when)
}

// checkAllocsByNode compares the per-node alloc reads (a node's live
// allocs come from its usage row, its terminal ones from node_terminal)
// with a filter of every stored alloc, in ID order.
func checkAllocsByNode(t *testing.T, r reader, allocs []*structs.Allocation, when string) {
	t.Helper()
	for _, node := range []string{"n1", "n2", "n3", "n4", "n5", ""} {
		var all, live, terminal []*structs.Allocation
		for _, a := range allocs { // in ID order
			if a.NodeID != node || node == "" {
				continue
			}
			all = append(all, a)
			if a.TerminalStatus() {
				terminal = append(terminal, a)
			} else {
				live = append(live, a)
			}
		}
		gotAll, err := r.AllocsByNode(nil, node)
		must(t, err)
		gotLive, err := r.AllocsByNodeTerminal(nil, node, false)
		must(t, err)
		gotTerminal, err := r.AllocsByNodeTerminal(nil, node, true)
		must(t, err)
		for _, c := range []struct {
			name      string
			got, want []*structs.Allocation
		}{{"AllocsByNode", gotAll, all}, {"live", gotLive, live}, {"terminal", gotTerminal, terminal}} {
			if !slices.Equal(c.got, c.want) {
				t.Fatalf("%s: node %q: %s: %d allocs %v, want %d %v", when, node, c.name, len(c.got), allocIDs(c.got), len(c.want), allocIDs(c.want))
			}
		}
	}
}

func usageDiff(want, got *structs.NodeUsage) string {
	if got == nil {
		return "no usage stored"
	}
	ids := func(u *structs.NodeUsage) []string {
		var out []string
		for _, a := range u.Allocs {
			out = append(out, a.ID)
		}
		return out
	}
	switch {
	case !slices.Equal(ids(want), ids(got)):
		return fmt.Sprintf("allocs %v, want %v", ids(got), ids(want))
	case !slices.Equal(want.Allocs, got.Allocs):
		return "alloc pointers differ from the stored allocs"
	case want.Used != got.Used:
		return fmt.Sprintf("used %+v, want %+v", got.Used, want.Used)
	case want.MemoryMaxMB != got.MemoryMaxMB:
		return fmt.Sprintf("memory_max %d, want %d", got.MemoryMaxMB, want.MemoryMaxMB)
	case !maps.Equal(want.Cores, got.Cores):
		return fmt.Sprintf("cores %v, want %v", got.Cores, want.Cores)
	case !maps.Equal(want.Ports, got.Ports):
		return fmt.Sprintf("ports %v, want %v", got.Ports, want.Ports)
	case want.Devices != got.Devices:
		return fmt.Sprintf("devices %d, want %d", got.Devices, want.Devices)
	}
	return ""
}

// TestNodeUsage_StoredValueNeverChanges checks that a usage read before a
// write is not modified by it (readers share the stored value).
func TestNodeUsage_StoredValueNeverChanges(t *testing.T) {
	s := newStore(t)
	job := mockJob("web")
	must(t, s.UpsertJob(1, 0, job))
	must(t, s.UpsertAllocs(2, []*structs.Allocation{mockAlloc("a1", job, "n1")}))
	before, err := s.NodeUsage(nil, "n1")
	must(t, err)
	used, n := before.Used, len(before.Allocs)
	must(t, s.UpsertAllocs(3, []*structs.Allocation{mockAlloc("a2", job, "n1")}))
	after, err := s.NodeUsage(nil, "n1")
	must(t, err)
	if before.Used != used || len(before.Allocs) != n {
		t.Fatalf("the stored usage changed in place: %+v", before)
	}
	if len(after.Allocs) != 2 || after.Used.CpuShares != 2*used.CpuShares {
		t.Fatalf("after a second alloc: %+v", after)
	}
}

// randomWriteStore is the start of the random write tests: a store with
// nodes n1-n4 and the job "web" they write allocs of.
func randomWriteStore(t *testing.T) (*StateStore, []string, *structs.Job) {
	s := newStore(t)
	nodes := []string{"n1", "n2", "n3", "n4"}
	for i, id := range nodes {
		must(t, s.UpsertNode(uint64(i+1), mockNode(id)))
	}
	job := mockJob("web")
	must(t, s.UpsertJob(10, 0, job))
	job, _ = s.JobByID(nil, job.Namespace, job.ID)
	return s, nodes, job
}
