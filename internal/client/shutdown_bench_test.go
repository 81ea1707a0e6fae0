package client

import (
	"context"
	"fmt"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// BenchmarkClientShutdown measures stopping a client that runs many
// allocs (mock driver): Shutdown leaves the tasks running for the next
// client (agent restart), Destroy kills them (-dev). Each op is one
// client; ns/op is the shutdown alone.
func BenchmarkClientShutdown(b *testing.B) {
	for _, n := range []int{500, 2000} {
		for _, destroy := range []bool{false, true} {
			b.Run(fmt.Sprintf("allocs=%d/destroy=%v", n, destroy), func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					h := newHarness(b)
					h.cfg.Clock = clock.Real{} // kill timeouts pass on their own
					h.cfg.LogPollInterval = 0  // the agent's default, not the tests' 10ms
					c := h.start()
					runAllocs(h, n)
					b.StartTimer()
					var err error
					// Labelled, so a -cpuprofile can focus on the stop alone:
					// go tool pprof -tagfocus phase=stop
					pprof.Do(context.Background(), pprof.Labels("phase", "stop"), func(context.Context) {
						if destroy {
							err = c.Destroy()
						} else {
							err = c.Shutdown()
						}
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// runAllocs gives the client n long-running allocs and waits until the
// client runs them all.
func runAllocs(h *harness, n int) {
	job := mockJob(structs.JobTypeService, &structs.Task{Name: "t", Config: map[string]any{"run_for": "1h"}})
	allocs := make([]*structs.Allocation, n)
	for i := range allocs {
		allocs[i] = newAlloc(fmt.Sprintf("a%06d", i), job)
	}
	h.fs.upsert(allocs...)
	deadline := time.Now().Add(5 * time.Minute)
	for h.c.runningAllocs() < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("%d of %d allocs running", h.c.runningAllocs(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runningAllocs counts the allocs whose tasks all run.
func (c *Client) runningAllocs() int {
	n := 0
	for _, r := range c.allRunners() {
		running := true
		for _, tr := range r.Tasks() {
			if tr.State().State != structs.TaskStateRunning {
				running = false
			}
		}
		if running && len(r.Tasks()) > 0 {
			n++
		}
	}
	return n
}
