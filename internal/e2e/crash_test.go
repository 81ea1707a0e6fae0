package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// agentProc is a drover agent running as a subprocess.
type agentProc struct {
	bin, configFile, logFile string
	httpAddr                 string
	cmd                      *exec.Cmd
	exited                   chan struct{}
}

// writeClientConfig writes a client-only agent config for serverRPC.
func writeClientConfig(t *testing.T, name, serverRPC string) (file, httpAddr string) {
	t.Helper()
	dir := t.TempDir()
	httpPort := freePort(t)
	hcl := fmt.Sprintf(`
name      = %q
data_dir  = %q
bind_addr = "127.0.0.1"
log_level = "DEBUG"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
client {
  enabled = true
  servers = [%q]
  node_registration_token = %q
}
plugin "raw_exec" {
  config {
    enabled = true
  }
}
`, name, filepath.Join(dir, "data"), httpPort, freePort(t), freePort(t), serverRPC, e2eNodeCredential)
	file = filepath.Join(dir, "client.hcl")
	if err := os.WriteFile(file, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, fmt.Sprintf("127.0.0.1:%d", httpPort)
}

// start runs the agent, appending its output to the log file.
func (p *agentProc) start(t *testing.T) {
	t.Helper()
	logf, err := os.OpenFile(p.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(p.bin, "agent", "-config", p.configFile)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.exited = make(chan struct{})
	go func() { p.cmd.Wait(); logf.Close(); close(p.exited) }()
}

// stop signals the agent and waits for it to exit.
func (p *agentProc) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("agent did not exit on %v", sig)
	}
}

// dumpLogOnFailure prints the agent's output when the test failed.
func (p *agentProc) dumpLogOnFailure(t *testing.T) {
	if t.Failed() {
		b, _ := os.ReadFile(p.logFile)
		t.Logf("agent output:\n%s", b)
	}
}

// TestSIGKILLedClientKeepsItsTasks: a client agent process killed with
// SIGKILL and started again on the same data dir re-attaches to its
// raw_exec task, which never stopped, and the alloc stays running.
func TestSIGKILLedClientKeepsItsTasks(t *testing.T) {
	t.Parallel()
	bin := requireDrover(t)
	srv, c := startServer(t, func(cfg *config.Config) { cfg.Client.Enabled = false })
	file, httpAddr := writeClientConfig(t, "crashy", srv.RPCAddr())
	p := &agentProc{bin: bin, configFile: file, logFile: filepath.Join(t.TempDir(), "agent.log"), httpAddr: httpAddr}
	p.start(t)
	t.Cleanup(func() { p.dumpLogOnFailure(t); p.stop(t, syscall.SIGKILL) })
	nodeID := nodeNamed(t, c, "crashy")

	register(t, c, pinTo(serviceJob("keep", 1, shellTask("raw_exec", `echo pids $$; exec sleep 1000`)), nodeID))
	alloc := runningAllocs(t, c, "keep", 1)[0]
	pid := pidsLine(waitLogs(t, c, alloc, func(s string) bool { return len(pidsLine(s)) == 1 }))[0]
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	p.stop(t, syscall.SIGKILL)
	if !processAlive(pid) {
		t.Fatalf("task pid %d died with its client agent", pid)
	}
	p.start(t)
	// The restarted client answers for the alloc once it has restored it.
	waitFor(t, 20*time.Second, "restarted agent serving the alloc", func() (bool, string) {
		resp, err := http.Get("http://" + httpAddr + "/v1/client/allocation/" + alloc.ID + "/stats")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	// A client that failed to re-attach would report the task dead within
	// its update batch interval; watch well past that.
	// real time: the client is another process on the wall clock, and
	// nothing must happen in the window, so there is no condition to wait for.
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ts := a.TaskStates["t"]; a.ClientStatus != api.AllocClientStatusRunning || ts == nil || ts.Restarts != 0 || ts.State != "running" {
			t.Fatalf("after the restart: alloc %s, task %s", a.ClientStatus, taskSummary(a))
		}
		if !processAlive(pid) {
			t.Fatalf("task pid %d gone after the client restarted", pid)
		}
	}
	// The re-attached client still controls the task: stopping the job
	// kills it.
	if _, _, err := c.Jobs().Deregister("keep", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "task stopped through the restarted client", func() (bool, string) {
		return !processAlive(pid), fmt.Sprintf("pid %d alive", pid)
	})
}

// nodeNamed waits for a ready node of that name and returns its ID.
func nodeNamed(t *testing.T, c *api.Client, name string) string {
	t.Helper()
	var id string
	waitFor(t, 30*time.Second, "node "+name+" ready", func() (bool, string) {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil {
			return false, err.Error()
		}
		for _, n := range nodes {
			if n.Name == name && n.Status == "ready" {
				id = n.ID
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d nodes", len(nodes))
	})
	return id
}
