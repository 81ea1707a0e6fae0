package command

import (
	"testing"
	"time"
)

// TestAllocClientCommands: the commands served by the node's client
// (logs, restart, signal, stats) fail clearly, with exit 1, while the
// agent has no client endpoints yet.
func TestAllocClientCommands(t *testing.T) {
	addr, a := schedulingAgentNode(t)
	if r := run(t, "job", "run", "-address", addr, "-monitor-deployment=false", "testdata/jobs/example.nomad.hcl"); r.code != 0 {
		t.Fatalf("job run: %+v", r)
	}
	allocs, err := a.Server().State().AllocsByJob(nil, "default", "example-hcl", false)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("allocs: %v, %d", err, len(allocs))
	}
	id := allocs[0].ID
	start := time.Now()
	golden(t, "alloc_logs_unavailable", run(t, "alloc", "logs", "-address", addr, id, "redis"))
	golden(t, "alloc_logs_stderr_unavailable", run(t, "alloc", "logs", "-address", addr, "-stderr", "-f", id, "redis"))
	golden(t, "alloc_restart_unavailable", run(t, "alloc", "restart", "-address", addr, id))
	golden(t, "alloc_signal_unavailable", run(t, "alloc", "signal", "-address", addr, "-s", "SIGHUP", id))
	golden(t, "alloc_status_stats_unavailable", run(t, "alloc", "status", "-address", addr, "-stats", id))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the failures took %v: something waits for a node that will not answer", d)
	}
}
