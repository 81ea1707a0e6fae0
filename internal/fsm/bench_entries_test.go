package fsm

import (
	"fmt"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/benchentries"
)

// benchEntries are the first 120 command entries a 3-server drover bench
// -scenario a -nodes 5000 committed after its nodes registered (64 job
// registers of a 10-alloc service job with its eval, 56 plan results
// placing 10 allocs each and finishing the eval), as the leader's FSM
// received them at raft indexes 5006-5125; testdata/bench-entries.bin.gz
// holds them (package benchentries reads it). The indexes matter: a plan
// whose job's CreateIndex is not the stored job's places nothing
// (structs.PlanJobGone).
func benchEntries(tb testing.TB) []*raft.Log {
	tb.Helper()
	entries, err := benchentries.Read("testdata/bench-entries.bin.gz")
	if err != nil {
		tb.Fatal(err)
	}
	logs := make([]*raft.Log, len(entries))
	for i, e := range entries {
		logs[i] = &raft.Log{Index: e.Index, Type: raft.LogCommand, Data: e.Data}
	}
	return logs
}

// benchNode is drover bench's i-th simulated node (bench.NewNode, with a
// fixed secret): the nodes the captured plans place on.
func benchNode(i int) *structs.Node {
	return &structs.Node{
		ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), SecretID: fmt.Sprintf("secret-%d", i), Name: fmt.Sprintf("bench-node-%d", i),
		Datacenter: "dc1", NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"driver.exec": "1", "kernel.name": "linux", "cpu.numcores": "4"},
		Drivers:    map[string]*structs.DriverInfo{"exec": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: 4 * 3500},
			MemoryMB: 32000, DiskMB: 100_000,
		},
	}
}

// BenchmarkFSMApplyBenchEntries applies the captured bench entries (job
// registers and plan results, 560 placements) to an FSM over 5,000
// registered nodes, with events on as on a server, in raft batches of the
// given size: what every server, followers included, spends applying the
// bench's log. ns/placement is per placed alloc.
//
//	go test ./internal/fsm -run '^$' -bench FSMApplyBenchEntries -benchtime 30x
func BenchmarkFSMApplyBenchEntries(b *testing.B) {
	logs := benchEntries(b)
	placements := 0
	for _, l := range logs {
		if structs.MessageType(l.Data[0]) == structs.ApplyPlanResultsRequestType {
			var req structs.ApplyPlanResultsRequest
			if err := structs.Decode(l.Data[1:], &req); err != nil {
				b.Fatal(err)
			}
			placements += len(req.AllocsUpdated)
		}
	}
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				f, err := New(nil)
				if err != nil {
					b.Fatal(err)
				}
				nodes := f.State().BeginBatch()
				for i := range 5000 {
					if err := f.State().UpsertNode(uint64(1+i), benchNode(i)); err != nil {
						b.Fatal(err)
					}
				}
				nodes.Commit()
				// After the nodes: their changes would be published with
				// the first entry's.
				f.SetEventPublisher(discardPublisher{})
				b.StartTimer()
				for start := 0; start < len(logs); start += batch {
					for _, r := range f.ApplyBatch(logs[start:min(start+batch, len(logs))]) {
						if r != nil {
							b.Fatal(r)
						}
					}
				}
				b.StopTimer()
				if allocs, err := f.State().Allocs(nil, "default"); err != nil || len(allocs) != placements {
					b.Fatalf("%d allocs stored (%v), want %d", len(allocs), err, placements)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*placements), "ns/placement")
		})
	}
}
