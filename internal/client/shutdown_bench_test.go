package client

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// BenchmarkClientShutdown measures stopping a client that runs many
// allocs (mock driver): Shutdown leaves the tasks running for the next
// client (agent restart), Destroy kills them (-dev). Each op is one
// client; ns/op is the shutdown alone. A task holds four files open for
// its logs, so the 50,000-alloc runs disable log collection (logs
// { disabled = true }) to fit a 20,000-file limit, as do the 5,000-alloc
// runs; run them alone: -bench 'ClientShutdown/^allocs=50000$/'. On a
// shared 2-core box: Shutdown 1.2 s, Destroy 8.7 s.
func BenchmarkClientShutdown(b *testing.B) {
	for _, n := range []int{500, 2000, 5000, 50_000} {
		for _, destroy := range []bool{false, true} {
			b.Run(fmt.Sprintf("allocs=%d/destroy=%v", n, destroy), func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					h := newHarness(b)
					h.cfg.Clock = clock.Real{} // kill timeouts pass on their own
					h.cfg.LogPollInterval = 0  // the agent's default, not the tests' 10ms
					c := h.start()
					runAllocs(h, n, n > 2000)
					b.StartTimer()
					stopProfile := startStopProfile(b)
					var err error
					if destroy {
						err = c.Destroy()
					} else {
						err = c.Shutdown()
					}
					stopProfile()
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// stopProfile names a file for a CPU profile of the stop alone (every
// goroutine, the runners' included), without the minutes of setup.
var stopProfile = flag.String("stopprofile", "", "write a CPU profile of the stop alone")

func startStopProfile(b *testing.B) func() {
	if *stopProfile == "" {
		return func() {}
	}
	f, err := os.Create(*stopProfile)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	// The goroutines a second in: what the stop waits for.
	dump := time.AfterFunc(time.Second, func() {
		if g, err := os.Create(*stopProfile + ".goroutines"); err == nil {
			_ = pprof.Lookup("goroutine").WriteTo(g, 1)
			g.Close()
		}
	})
	return func() {
		dump.Stop()
		pprof.StopCPUProfile()
		f.Close()
	}
}

// runAllocs gives the client n long-running allocs and waits until the
// client runs them all.
func runAllocs(h *harness, n int, noLogs bool) {
	task := &structs.Task{Name: "t", Config: map[string]any{"run_for": "1h"}}
	if noLogs {
		task.LogConfig = &structs.LogConfig{Disabled: true}
	}
	job := mockJob(structs.JobTypeService, task)
	allocs := make([]*structs.Allocation, n)
	for i := range allocs {
		allocs[i] = newAlloc(fmt.Sprintf("a%06d", i), job)
	}
	h.fs.upsert(allocs...)
	testutil.WaitFor(h.t, 5*time.Minute+time.Duration(n)*10*time.Millisecond, "the allocs to run", func() (bool, string) {
		running := h.c.runningAllocs()
		return running >= n, fmt.Sprintf("%d of %d allocs running", running, n)
	})
	// A task is running before its state is on disk: let the writes of
	// the start finish, so the stop measured is a settled client's.
	if err := h.c.store.Sync(); err != nil {
		h.t.Fatal(err)
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
