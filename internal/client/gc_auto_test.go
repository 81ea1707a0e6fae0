package client

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// TestGC_AutomaticCollectionKeepsMaxAllocsAndDiskBelowThreshold: with
// gc_max_allocs = 2 the client, on its own every gc_interval, destroys the
// oldest finished allocs past two; with the disk over gc_disk_usage_threshold
// it destroys finished allocs until use is back under it. Running allocs
// are never touched.
func TestGC_AutomaticCollectionKeepsMaxAllocsAndDiskBelowThreshold(t *testing.T) {
	h := newHarness(t)
	var diskUse atomic.Int64
	diskUse.Store(50)
	h.cfg.GC = GCConfig{Interval: time.Minute, MaxAllocs: 2, ParallelDestroys: 2, DiskUsageThreshold: 80,
		Usage: func(string) (float64, float64, error) { return float64(diskUse.Load()), 0, nil }}
	c := h.start()
	job := mockJob(structs.JobTypeBatch, &structs.Task{Name: "t", Config: map[string]any{"run_for": "1s"}})
	long := mockJob(structs.JobTypeBatch, &structs.Task{Name: "t", Config: map[string]any{"run_for": "1h"}})
	var ids []string
	for i := range 4 {
		a := newAlloc(fmt.Sprintf("done-%d", i), job)
		a.CreateIndex = uint64(10 + i)
		ids = append(ids, a.ID)
		h.fs.upsert(a)
	}
	running := newAlloc("running", long)
	running.CreateIndex = 1 // the oldest, but it runs
	h.fs.upsert(running)
	for _, id := range ids {
		h.reported(id, structs.AllocClientStatusComplete)
	}
	has := func(id string) bool { _, err := c.runner(id); return err == nil }
	// 5 allocs, cap 2: the three oldest finished ones go, at the next interval.
	h.advanceUntil("the client holds 2 allocs", 10*time.Second, func() bool { return len(c.allRunners()) == 2 })
	if !has("running") || !has("done-3") || has("done-0") || has("done-1") || has("done-2") {
		t.Fatalf("kept %v, want running and done-3", runnerIDs(c))
	}
	// Disk over the threshold: the last finished alloc goes too.
	diskUse.Store(90)
	h.advanceUntil("the finished alloc is collected for disk", 10*time.Second, func() bool { return !has("done-3") })
	if !has("running") {
		t.Fatal("a running alloc was collected")
	}
}

func runnerIDs(c *Client) []string {
	var out []string
	for _, r := range c.allRunners() {
		out = append(out, r.ID())
	}
	return out
}
