package scheduler

import (
	"fmt"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// A replacement of a group with a sticky ephemeral_disk goes back to its
// previous alloc's node, although binpacking prefers the other nodes
// (each holds a filler alloc); without sticky it leaves.
func TestSticky_ReplacementStaysOnThePreviousNode(t *testing.T) {
	for _, tc := range []struct {
		name         string
		disk         *structs.EphemeralDisk
		wantSameNode bool
	}{
		{"sticky", &structs.EphemeralDisk{SizeMB: 10, Sticky: true}, true},
		{"migrate implies sticky", &structs.EphemeralDisk{SizeMB: 10, Migrate: true}, true},
		{"not sticky", &structs.EphemeralDisk{SizeMB: 10}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			var nodes []*structs.Node
			for range 4 {
				nodes = append(nodes, h.upsertNode(mockNode()))
			}
			job := mockJob("web", 1)
			job.TaskGroups[0].EphemeralDisk = tc.disk
			job.TaskGroups[0].Update = nil
			job.Update = structs.UpdateStrategy{}
			job, _ = h.register(job)
			first := h.liveAllocs(job)
			if len(first) != 1 {
				t.Fatalf("%d allocs placed", len(first))
			}
			prevNode := first[0].NodeID
			filler := h.upsertJob(mockJob("filler", 1))
			for i, n := range nodes {
				if n.ID != prevNode {
					a := mock.Alloc(fmt.Sprintf("filler-%d", i), filler, n.ID)
					a.AllocatedResources.Tasks["web"].MemoryMB = 4096
					h.upsertAllocs(a)
				}
			}
			h.register(destructiveUpdate(job))
			live := h.liveAllocs(job)
			if len(live) != 1 || live[0].PreviousAllocation != first[0].ID {
				t.Fatalf("live allocs %+v: want one replacement of %s", live, first[0].ID)
			}
			if same := live[0].NodeID == prevNode; same != tc.wantSameNode {
				t.Fatalf("replacement on %s, previous on %s: same node %v, want %v", live[0].NodeID, prevNode, same, tc.wantSameNode)
			}
		})
	}
}
