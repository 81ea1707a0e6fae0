package e2e

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	execdriver "github.com/drover-project/drover/internal/client/drivers/exec"
)

// requireIsolation skips where the exec driver cannot isolate tasks.
func requireIsolation(t *testing.T) {
	t.Helper()
	switch {
	case runtime.GOOS != "linux":
		t.Skip("the exec driver needs Linux")
	case os.Geteuid() != 0:
		t.Skip("the exec driver needs root (namespaces, chroot, cgroups); run the e2e tests as root to cover it")
	case execdriver.DetectCgroups() == execdriver.CgroupNone:
		t.Skip("the exec driver needs cgroups (v2, or v1 memory and cpu controllers); none are mounted")
	}
}

func TestExecTaskIsIsolatedAndHeldToItsMemory(t *testing.T) {
	t.Parallel()
	requireIsolation(t)
	a, c := startServer(t, nil)
	if n, _, err := c.Nodes().Info(a.Client().NodeID(), nil); err != nil || n.Drivers["exec"] == nil || !n.Drivers["exec"].Detected {
		t.Fatalf("exec driver not detected on the node: %v", err)
	}

	// The task lists the PIDs it can see: its own namespace's few.
	register(t, c, serviceJob("ps", 1, shellTask("exec", `echo pids $(ls /proc | grep '^[0-9]*$'); exec sleep 1000`)))
	alloc := runningAllocs(t, c, "ps", 1)[0]
	var pids []int
	waitLogs(t, c, alloc, func(s string) bool { pids = pidsLine(s); return len(pids) > 0 })
	if len(pids) > 5 {
		t.Errorf("the task sees %d processes (%v); a fresh PID namespace holds a handful", len(pids), pids)
	}
	for _, p := range pids {
		if p == os.Getpid() {
			t.Errorf("the task sees this test's PID %d among %v", p, pids)
		}
	}

	// 256 MB through tail (which keeps a newline-free input in memory)
	// against a 32 MB limit: the kernel kills it, and without restarts
	// the alloc fails with an OOM event.
	hog := shellTask("exec", `head -c 268435456 /dev/zero | tail`)
	hog.Resources.MemoryMB = pointer(32)
	job := serviceJob("hog", 1, hog)
	job.TaskGroups[0].RestartPolicy = &api.RestartPolicy{Attempts: pointer(0), Mode: pointer("fail"), Interval: pointer(time.Minute), Delay: pointer(time.Second)}
	job.TaskGroups[0].ReschedulePolicy = &api.ReschedulePolicy{Attempts: pointer(0), Unlimited: pointer(false)}
	register(t, c, job)
	waitFor(t, 30*time.Second, "the memory hog OOM-killed", func() (bool, string) {
		allocs := jobAllocs(t, c, "hog")
		if len(allocs) == 0 {
			return false, "no alloc"
		}
		a := allocs[0] // count 1, no reschedule: the one alloc
		ts := a.TaskStates["t"]
		if ts == nil {
			return false, a.ClientStatus
		}
		for _, e := range ts.Events {
			if e.Type == api.TaskTerminated && e.Details["oom_killed"] == "true" {
				return true, ""
			}
		}
		return false, a.ClientStatus + " " + taskSummary(a)
	})
}
