// Package e2e runs Drover end to end through its HTTP API: real agents
// (in-process, plus one drover subprocess for the crash test), real
// drivers and real processes and containers. It holds tests only.
package e2e

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
	execdriver "github.com/drover-project/drover/internal/client/drivers/exec"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// droverBin is the drover binary TestMain builds for tests that need a
// real agent process; binErr says why it is missing.
var (
	droverBin   string
	binErr      error
	binBuilt    = make(chan struct{})
	testTempDir string
)

func TestMain(m *testing.M) {
	// In-process exec tasks re-run this test binary as their executor.
	if len(os.Args) > 1 && os.Args[1] == execdriver.ExecutorArg {
		execdriver.ExecutorMain()
	}
	dir, err := os.MkdirTemp("", "drover-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testTempDir = dir
	// The build overlaps the tests that do not need it.
	go buildDrover(dir)
	code := m.Run()
	<-binBuilt
	cleanupImages()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildDrover compiles ./cmd/drover from the module root (two levels up
// from this package's directory, where go test runs).
func buildDrover(dir string) {
	defer close(binBuilt)
	bin := filepath.Join(dir, "drover")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/drover")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		binErr = fmt.Errorf("go build ./cmd/drover: %v\n%s", err, out)
		return
	}
	droverBin = bin
}

// requireDrover waits for the binary TestMain builds.
func requireDrover(t *testing.T) string {
	t.Helper()
	<-binBuilt
	if binErr != nil {
		t.Fatal(binErr)
	}
	return droverBin
}

var (
	portMu    sync.Mutex
	usedPorts = map[int]bool{}
)

// freePort returns a TCP port that was free a moment ago and that no
// other test of this process was given (tests run in parallel).
func freePort(t *testing.T) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find free port: %v", err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if !usedPorts[p] {
			usedPorts[p] = true
			return p
		}
	}
}

// e2eNodeCredential is every test agent's node_registration_token.
const e2eNodeCredential = "e2e-node-credential"

func quietLogger() *slog.Logger {
	if os.Getenv("DROVER_E2E_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// startAgent starts an in-process agent from a dev config (loopback,
// raw_exec on, tasks stopped on shutdown) with its own ports and data dir.
func startAgent(t testing.TB, name string, mutate func(*config.Config)) *agent.Agent {
	t.Helper()
	return agenttest.Start(t, quietLogger(), func(cfg *config.Config) {
		cfg.Name = name
		cfg.DataDir = t.TempDir()
		// One node credential for the whole test cluster, so further
		// client agents can register with the first agent's server.
		cfg.Server.NodeRegistrationToken = e2eNodeCredential
		cfg.Client.NodeRegistrationToken = e2eNodeCredential
		if mutate != nil {
			mutate(cfg)
		}
	})
}

// startServer starts a server that is also a client (the first node).
func startServer(t *testing.T, mutate func(*config.Config)) (*agent.Agent, *api.Client) {
	t.Helper()
	a := startAgent(t, "first", mutate)
	c := apiClient(t, a.HTTPAddr())
	if a.Client() != nil {
		waitNodeStatus(t, c, a.Client().NodeID(), "ready")
	}
	return a, c
}

// startClient starts a client-only agent of the server at serverRPC (a
// further node) and waits for its node to be ready.
func startClient(t *testing.T, name, serverRPC string, c *api.Client) *agent.Agent {
	t.Helper()
	a := startAgent(t, name, func(cfg *config.Config) {
		cfg.Server.Enabled = false
		cfg.Client.Servers = []string{serverRPC}
	})
	waitNodeStatus(t, c, a.Client().NodeID(), "ready")
	return a
}

func apiClient(t *testing.T, addr string) *api.Client {
	t.Helper()
	c, err := api.NewClient(&api.Config{Address: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor polls cond until it reports done, failing the test at the
// deadline with cond's last explanation.
func waitFor(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testutil.WaitFor(t, d, what, cond)
}

func waitNodeStatus(t *testing.T, c *api.Client, nodeID, status string) {
	t.Helper()
	waitFor(t, 20*time.Second, "node "+nodeID+" "+status, func() (bool, string) {
		n, _, err := c.Nodes().Info(nodeID, nil)
		if err != nil {
			return false, err.Error()
		}
		return n.Status == status, "status " + n.Status
	})
}

// jobAllocs lists a job's allocs in full.
func jobAllocs(t *testing.T, c *api.Client, jobID string) []*api.Allocation {
	t.Helper()
	stubs, _, err := c.Jobs().Allocations(jobID, true, nil)
	if err != nil {
		t.Fatalf("allocs of %s: %v", jobID, err)
	}
	out := make([]*api.Allocation, 0, len(stubs))
	for _, s := range stubs {
		a, _, err := c.Allocations().Info(s.ID, nil)
		if err != nil {
			t.Fatalf("alloc %s: %v", s.ID, err)
		}
		out = append(out, a)
	}
	return out
}

// runningAllocs waits until the job has n running allocs and returns them.
func runningAllocs(t *testing.T, c *api.Client, jobID string, n int) []*api.Allocation {
	t.Helper()
	var out []*api.Allocation
	waitFor(t, 30*time.Second, fmt.Sprintf("%d running allocs of %s", n, jobID), func() (bool, string) {
		out = out[:0]
		var states []string
		for _, a := range jobAllocs(t, c, jobID) {
			states = append(states, a.ClientStatus+" "+taskSummary(a))
			if a.ClientStatus == api.AllocClientStatusRunning {
				out = append(out, a)
			}
		}
		return len(out) == n, strings.Join(states, "; ")
	})
	return out
}

// taskSummary is the last event of each task, for failure messages.
func taskSummary(a *api.Allocation) string {
	var parts []string
	for name, ts := range a.TaskStates {
		msg := ts.State
		if n := len(ts.Events); n > 0 {
			e := ts.Events[n-1]
			msg += " (" + e.Type + ": " + e.DisplayMessage + ")"
		}
		parts = append(parts, name+"="+msg)
	}
	return strings.Join(parts, ", ")
}

func register(t *testing.T, c *api.Client, job *api.Job) {
	t.Helper()
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register %s: %v", *job.ID, err)
	}
}

func pointer[T any](v T) *T { return &v }

// serviceJob is a one-task service job of count n.
func serviceJob(id string, n int, task *api.Task) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("g", n)
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

// shellTask runs script with /bin/sh under driver (raw_exec or exec).
func shellTask(driver, script string) *api.Task {
	task := api.NewTask("t", driver)
	task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}
	task.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(64)})
	task.KillTimeout = pointer(2 * time.Second)
	return task
}

// pinTo constrains the job to one node.
func pinTo(job *api.Job, nodeID string) *api.Job {
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", nodeID))
	return job
}

// readLogs reads a task's whole stream (not following).
func readLogs(t *testing.T, c *api.Client, a *api.Allocation, task, typ string) string {
	t.Helper()
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Logs(a, false, task, typ, api.OriginStart, 0, cancel, nil)
	var b strings.Builder
	timeout := time.After(10 * time.Second)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return b.String()
			}
			b.Write(f.Data)
		case err := <-errs:
			t.Fatalf("logs of %s/%s: %v", a.ID, task, err)
		case <-timeout:
			t.Fatalf("logs of %s/%s: stream did not end (so far %q)", a.ID, task, b.String())
		}
	}
}

// waitLogs waits until the task's stdout satisfies ok and returns it.
func waitLogs(t *testing.T, c *api.Client, a *api.Allocation, ok func(string) bool) string {
	t.Helper()
	var out string
	waitFor(t, 15*time.Second, "stdout of alloc "+a.ID, func() (bool, string) {
		out = readLogs(t, c, a, "t", "stdout")
		return ok(out), fmt.Sprintf("%q", out)
	})
	return out
}

// processAlive reports whether pid is a live (not zombie) process.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// evalsOf lists a job's evaluations.
func evalsOf(t *testing.T, c *api.Client, jobID string) []*api.Evaluation {
	t.Helper()
	evals, _, err := c.Jobs().Evaluations(jobID, nil)
	if err != nil {
		t.Fatalf("evals of %s: %v", jobID, err)
	}
	return evals
}
