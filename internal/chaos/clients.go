package chaos

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/nomad/api"
)

// clientProc is one real `drover agent` client process: it runs the load's
// raw_exec jobs (real task processes), so the checks can look for task
// processes whose alloc is gone.
type clientProc struct {
	name     string
	dir      string
	httpPort int
	cmd      *exec.Cmd
	exited   chan struct{}
	binary   string
}

// startClient writes the client's config (every server's RPC address,
// raw_exec on) and runs it.
func startClient(binary, dir, name string, servers []string) (*clientProc, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	c := &clientProc{name: name, dir: dir, httpPort: ports[0], binary: binary}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	cfg := agentConfig(name, dir, ports[0], ports[1], ports[2]) + fmt.Sprintf(`client {
  enabled = true
  servers = [%s]
}
plugin "raw_exec" {
  config {
    enabled = true
  }
}
`, hclList(servers))
	if err := os.WriteFile(filepath.Join(dir, "agent.hcl"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	return c, c.start()
}

// start runs the client agent (again: same config and data dir).
func (c *clientProc) start() error {
	logf, err := os.OpenFile(filepath.Join(c.dir, "agent.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.binary, "agent", "-config", filepath.Join(c.dir, "agent.hcl"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	c.cmd, c.exited = cmd, exited
	return nil
}

// kill sends SIGKILL to the client agent alone (a crash): its task
// processes keep running, as they would.
func (c *clientProc) kill() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
	c.cmd = nil
}

// waitReady waits until a server lists the client's node as ready.
func (c *clientProc) waitReady(srv *api.Client, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		nodes, _, err := srv.Nodes().List(nil)
		if err == nil {
			for _, n := range nodes {
				if n.Name == c.name && n.Status == api.NodeStatusReady {
					return nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond) // polling the node list
	}
	return fmt.Errorf("client %s not ready within %s (see %s)", c.name, timeout, filepath.Join(c.dir, "agent.log"))
}

// stop ends the client with SIGTERM (SIGKILL after 10 s); its tasks are
// killed by killTasks.
func (c *clientProc) stop() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	c.cmd = nil
}

// taskProc is a task process of a chaos client found in /proc.
type taskProc struct {
	pid     int
	allocID string
}

// taskProcs lists the processes whose environment names an alloc dir under
// root (the chaos clients' data dirs): the task processes of those
// clients, and only theirs (other agents on the machine have other dirs).
func taskProcs(root string) []taskProc {
	entries, _ := os.ReadDir("/proc")
	var out []taskProc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours to read
		}
		if p, ok := parseTaskEnv(pid, env, root); ok {
			out = append(out, p)
		}
	}
	return out
}

// parseTaskEnv reads NOMAD_ALLOC_ID from a NUL-separated environment whose
// NOMAD_ALLOC_DIR lies under root.
func parseTaskEnv(pid int, env []byte, root string) (taskProc, bool) {
	var allocID, allocDir string
	for _, kv := range bytes.Split(env, []byte{0}) {
		k, v, ok := strings.Cut(string(kv), "=")
		if !ok {
			continue
		}
		switch k {
		case "NOMAD_ALLOC_ID":
			allocID = v
		case "NOMAD_ALLOC_DIR":
			allocDir = v
		}
	}
	if allocID == "" || root == "" || !strings.HasPrefix(allocDir, strings.TrimSuffix(root, "/")+"/") {
		return taskProc{}, false
	}
	return taskProc{pid: pid, allocID: allocID}, true
}

// orphanProcs counts new task processes of the chaos clients whose alloc is
// terminal on the client or unknown to the cluster, polling until there
// are none or timeout passed (a stopped alloc's task takes its kill
// timeout to go).
func (h *harness) orphanProcs(leader *serverProc, timeout time.Duration) int {
	if len(h.clients) == 0 {
		return 0
	}
	deadline := time.Now().Add(timeout)
	for {
		var orphans []string
		procs := taskProcs(h.cfg.WorkDir)
		h.report.TaskProcsSeen = max(h.report.TaskProcsSeen, len(procs))
		for _, p := range procs {
			a, _, err := leader.api.Allocations().Info(p.allocID, nil)
			switch {
			case err != nil && strings.Contains(err.Error(), fmt.Sprint(http.StatusNotFound)):
				orphans = append(orphans, fmt.Sprintf("pid %d: alloc %s unknown", p.pid, p.allocID))
			case err != nil:
				continue // not an answer; next poll
			case isTerminal(a.ClientStatus):
				orphans = append(orphans, fmt.Sprintf("pid %d: alloc %s %s (%s)", p.pid, p.allocID, a.ClientStatus, a.JobID))
			}
		}
		if len(orphans) == 0 || time.Now().After(deadline) {
			n := 0
			for _, o := range orphans {
				fmt.Fprintf(h.cfg.Log, "  ORPHAN PROCESS: %s\n", o)
				if !h.orphansSeen[o] { // counted once, in the first round that saw it
					h.orphansSeen[o] = true
					n++
				}
			}
			return n
		}
		time.Sleep(500 * time.Millisecond) // waiting for task kills
	}
}

// killTasks kills what the chaos clients' tasks left running at the end.
func killTasks(root string) {
	for _, p := range taskProcs(root) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}
