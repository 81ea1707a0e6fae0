package client

import (
	"fmt"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestAllocSync_OneChangeFetchesOnlyThatAlloc: a client on a node with
// many finished allocs fetches each alloc once; after one alloc changes
// its pull fetches that alloc alone, and an alloc the servers no longer
// list (garbage collected) is dropped without any fetch. Before, each
// pull carried every alloc of the node with its job.
func TestAllocSync_OneChangeFetchesOnlyThatAlloc(t *testing.T) {
	h := newHarness(t)
	job := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{}})
	var done []*structs.Allocation
	for i := range 300 {
		a := newAlloc(fmt.Sprintf("done-%03d", i), job)
		a.DesiredStatus, a.ClientStatus = structs.AllocDesiredStatusStop, structs.AllocClientStatusComplete
		done = append(done, a)
	}
	h.fs.upsert(done...)
	h.fs.upsert(newAlloc("live", job))
	h.start()
	h.reported("live", structs.AllocClientStatusRunning)

	first := h.fs.fetches()
	var ids []string
	for _, call := range first {
		if len(call) > fetchBatch {
			t.Errorf("one fetch asked for %d allocs (batches of %d)", len(call), fetchBatch)
		}
		ids = append(ids, call...)
	}
	slices.Sort(ids)
	if len(ids) != 301 || len(slices.Compact(ids)) != 301 {
		t.Fatalf("first fetches: %d IDs in %d calls, want each of the 301 allocs once", len(ids), len(first))
	}

	h.fs.stop("live")
	h.reported("live", structs.AllocClientStatusComplete)
	if after := h.fs.fetches()[len(first):]; len(after) != 1 || !slices.Equal(after[0], []string{"live"}) {
		t.Fatalf("fetches after one alloc changed = %v, want [[live]]", after)
	}

	h.fs.remove("live", "done-000")
	h.waitFor("the collected alloc dropped", func() bool { _, err := h.c.runner("live"); return err != nil })
	if n := len(h.fs.fetches()); n != len(first)+1 {
		t.Fatalf("%d fetches after a collection, want none", n-len(first)-1)
	}
}
