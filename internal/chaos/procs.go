package chaos

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/nomad/api"
)

// serverProc is one real `drover agent` server process.
type serverProc struct {
	name                     string
	dir                      string
	httpPort, rpcPort, serfP int
	// mu guards cmd, exited and stopped: the load, the sequential writer
	// and the term watch read them while a round kills and starts.
	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
	stopped bool          // SIGSTOPped
	api     *api.Client
	binary  string
}

func (p *serverProc) rpcAddr() string  { return fmt.Sprintf("127.0.0.1:%d", p.rpcPort) }
func (p *serverProc) serfAddr() string { return fmt.Sprintf("127.0.0.1:%d", p.serfP) }
func (p *serverProc) alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// running reports whether the process runs and is not paused.
func (p *serverProc) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !p.stopped
}

// partitionFile is where the agent reads the peers it must not reach.
func (p *serverProc) partitionFile() string { return filepath.Join(p.dir, "partition") }

// freePorts returns n TCP ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var out []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// writeConfig writes the server's agent config: loopback, its ports,
// bootstrap_expect = all servers, retry_join to every server, short
// heartbeats so node flaps happen within a round.
func (p *serverProc) writeConfig(expect int, join []string) error {
	cfg := agentConfig(p.name, p.dir, p.httpPort, p.rpcPort, p.serfP) + fmt.Sprintf(`server {
  enabled           = true
  bootstrap_expect  = %d
  num_schedulers    = 2
  min_heartbeat_ttl = "2s"
  heartbeat_grace   = "3s"
  server_join {
    retry_join     = [%s]
    retry_interval = "200ms"
  }
}
`, expect, hclList(join))
	return os.WriteFile(filepath.Join(p.dir, "agent.hcl"), []byte(cfg), 0o600)
}

// agentConfig is the head of a chaos agent's config: its name, data dir,
// loopback and ports.
func agentConfig(name, dir string, http, rpc, serf int) string {
	return fmt.Sprintf(`name = %q
data_dir = %q
bind_addr = "127.0.0.1"
log_level = "WARN"
ports {
  http = %d
  rpc  = %d
  serf = %d
}
`, name, filepath.Join(dir, "data"), http, rpc, serf)
}

// hclList is an HCL list of quoted strings.
func hclList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(quoted, ", ")
}

// start runs the agent; its output goes to agent.log in its directory.
func (p *serverProc) start() error {
	logf, err := os.OpenFile(filepath.Join(p.dir, "agent.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.binary, "agent", "-config", filepath.Join(p.dir, "agent.hcl"),
		"-fast-gossip", "-partition-file", p.partitionFile())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	p.mu.Lock()
	p.cmd, p.stopped, p.exited = cmd, false, exited
	p.mu.Unlock()
	return nil
}

// kill sends SIGKILL (a crash: nothing flushed, no leave).
func (p *serverProc) kill() {
	p.mu.Lock()
	cmd, stopped, exited := p.cmd, p.stopped, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	if stopped {
		_ = cmd.Process.Signal(syscall.SIGCONT)
	}
	_ = cmd.Process.Kill()
	<-exited // its ports are free only once it is gone
	p.mu.Lock()
	p.cmd, p.stopped = nil, false
	p.mu.Unlock()
}

// pause and resume send SIGSTOP and SIGCONT.
func (p *serverProc) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(syscall.SIGSTOP)
		p.stopped = true
	}
}

func (p *serverProc) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && p.stopped {
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		p.stopped = false
	}
}

// setPartition makes this server drop raft traffic to peers.
func (p *serverProc) setPartition(peers []string) error {
	return os.WriteFile(p.partitionFile(), []byte(strings.Join(peers, "\n")), 0o600)
}

// raftState reads the server's raft term and role from /v1/agent/self.
func (p *serverProc) raftState() (term uint64, state string, applied uint64, err error) {
	self, err := p.api.Agent().Self()
	if err != nil {
		return 0, "", 0, err
	}
	r := self.Stats["raft"]
	fmt.Sscan(r["term"], &term)
	fmt.Sscan(r["applied_index"], &applied)
	return term, r["state"], applied, nil
}

// waitHTTP waits until the agent answers HTTP.
func (p *serverProc) waitHTTP(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := p.api.Agent().Self(); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond) // polling a process that is starting
	}
	return fmt.Errorf("%s: no HTTP answer within %s (see %s)", p.name, timeout, filepath.Join(p.dir, "agent.log"))
}
