package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// writeServerConfig writes a one-server agent config (server and client,
// raw_exec on) keeping its state in dataDir.
func writeServerConfig(t *testing.T, dataDir string) (file, httpAddr string) {
	t.Helper()
	dir := t.TempDir()
	httpPort := freePort(t)
	hcl := fmt.Sprintf(`
name      = "leader"
data_dir  = %q
bind_addr = "127.0.0.1"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
server {
  enabled          = true
  bootstrap_expect = 1
}
client {
  enabled = true
}
plugin "raw_exec" {
  config {
    enabled = true
  }
}
`, dataDir, httpPort, freePort(t), freePort(t))
	file = filepath.Join(dir, "server.hcl")
	if err := os.WriteFile(file, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, fmt.Sprintf("127.0.0.1:%d", httpPort)
}

// TestSIGTERMedLeaderUnderLoadExits: a one-server agent process (the
// leader, with a client) under load (jobs registering, workers
// scheduling, allocs running, blocking queries open) exits on SIGTERM
// within the shutdown bound (10 s, plus the process's own teardown), and
// started again on the same data dir it has every job it acknowledged
// (issue 27).
func TestSIGTERMedLeaderUnderLoadExits(t *testing.T) {
	t.Parallel()
	bin := requireDrover(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	file, httpAddr := writeServerConfig(t, dataDir)
	p := &agentProc{bin: bin, configFile: file, logFile: filepath.Join(t.TempDir(), "agent.log"), httpAddr: httpAddr}
	p.start(t)
	t.Cleanup(func() { p.dumpLogOnFailure(t); p.stop(t, syscall.SIGKILL) })
	c := apiClient(t, httpAddr)
	waitFor(t, 30*time.Second, "the agent's leader and node", func() (bool, string) {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil {
			return false, err.Error()
		}
		return len(nodes) == 1 && nodes[0].Status == "ready", fmt.Sprintf("%d nodes", len(nodes))
	})

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var load sync.WaitGroup
	for w := range 4 {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("load-%d-%d", w, i)
				job := serviceJob(id, 2, shellTask("raw_exec", "exit 0"))
				job.Type = pointer("batch")
				if _, _, err := c.Jobs().Register(job, nil); err != nil {
					return // the agent is going away
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		})
	}
	for range 3 { // blocking queries the shutdown must end
		load.Go(func() {
			_, _, _ = c.Jobs().List(&api.QueryOptions{WaitIndex: 1 << 40, WaitTime: 5 * time.Minute})
		})
	}
	waitFor(t, 60*time.Second, "load: 40 jobs acknowledged and allocs placed", func() (bool, string) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		allocs, _, err := c.Allocations().List(nil)
		if err != nil {
			return false, err.Error()
		}
		return n >= 40 && len(allocs) > 0, fmt.Sprintf("%d jobs, %d allocs", n, len(allocs))
	})

	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, 15*time.Second, "the agent to exit after SIGTERM", func() (bool, string) {
		select {
		case <-p.exited:
			return true, ""
		default:
			return false, "still running"
		}
	})
	close(stop)
	load.Wait()
	if out, _ := os.ReadFile(p.logFile); strings.Contains(string(out), "did not finish in time") {
		t.Logf("the shutdown reached its bound:\n%s", out)
	}

	mu.Lock()
	want := append([]string(nil), acked...)
	mu.Unlock()
	p.start(t)
	waitFor(t, 30*time.Second, "the restarted agent to answer with every acknowledged job", func() (bool, string) {
		jobs, _, err := c.Jobs().List(nil)
		if err != nil {
			return false, err.Error()
		}
		have := map[string]bool{}
		for _, j := range jobs {
			have[j.ID] = true
		}
		for _, id := range want {
			if !have[id] {
				return false, "missing " + id
			}
		}
		return true, ""
	})
}
