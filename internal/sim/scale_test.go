package sim

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"
)

var scale = flag.Bool("sim.scale", false, "run the scaled-up flapping cluster of docs/design.md (100 nodes, 50 jobs)")

// TestScale_FlappingCluster is the flapping-cluster example
// of docs/design.md, scaled: 100 nodes each
// running allocs of 10 system jobs and 40 service jobs (count 100,
// distinct_hosts) are each marked down and at once ready, in turn. It
// prints what the server wrote, processed and canceled, and how long the
// cluster took to go quiet, then checks every alloc is back. Heavy: run
// with -sim.scale (or DROVER_SIM_SCALE=1).
func TestScale_FlappingCluster(t *testing.T) {
	if !*scale && os.Getenv("DROVER_SIM_SCALE") == "" {
		t.Skip("run with -sim.scale")
	}
	const nodes, systemJobs, serviceJobs = 100, 10, 40
	s, err := New(1, Options{Realtime: true, Workers: 2})
	must(t, err)
	defer s.Close()
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("n-%03d", i+1)
		_, err := s.AddNode(NodeSpec{Name: names[i], CPU: 16000, MemoryMB: 32000})
		must(t, err)
	}
	setup := time.Now()
	for i := 1; i <= systemJobs; i++ {
		must(t, s.RegisterJob(JobSpec{Name: fmt.Sprintf("sys-%02d", i), Type: "system"}))
	}
	for i := 1; i <= serviceJobs; i++ {
		must(t, s.RegisterJob(JobSpec{Name: fmt.Sprintf("svc-%02d", i), Count: nodes, DistinctHosts: true}))
	}
	want := nodes * (systemJobs + serviceJobs)
	checkRunning(t, s, want)
	t.Logf("setup: %d allocs running in %v", want, time.Since(setup).Round(time.Millisecond))

	mark := s.Mark()
	must(t, s.Flap(names))
	must(t, s.RunUntilIdle())
	m, err := s.MetricsSince(mark)
	must(t, err)
	m.Elapsed -= s.opts.Settle // the quiet window itself is not work
	m.Write(os.Stdout)
	checkRunning(t, s, want)
}

// checkRunning waits for the nodes to report, then counts running allocs.
func checkRunning(t *testing.T, s *Sim, want int) {
	t.Helper()
	h, err := s.History()
	must(t, err)
	running := 0
	for _, a := range h.Allocs {
		if a.Desired == "run" && a.Client == "running" {
			running++
		}
	}
	if running != want {
		t.Fatalf("%d allocs running, want %d\n%s", running, want, h.Counts())
	}
}
