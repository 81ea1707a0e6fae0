package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// clientTestAgent is a dev agent (server and client, raw_exec on) whose
// schedulers place jobs.
func clientTestAgent(t *testing.T) (*Agent, *api.Client) {
	t.Helper()
	return testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
	})
}

// shellJob is a one-alloc raw_exec service running script with sh.
func shellJob(id, script string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("g", 1)
	task := api.NewTask("t", "raw_exec")
	task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", script}}
	task.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(32)})
	task.KillTimeout = pointer(time.Second)
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

// runJob registers job and waits for its first alloc to run.
func runJob(t *testing.T, c *api.Client, job *api.Job) *api.Allocation {
	t.Helper()
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register %s: %v", *job.ID, err)
	}
	var running string
	testutil.WaitFor(t, 20*time.Second, "a running alloc of job "+*job.ID, func() (bool, string) {
		stubs, _, err := c.Jobs().Allocations(*job.ID, false, nil)
		if err != nil || len(stubs) == 0 {
			return false, "no alloc"
		}
		running = stubs[0].ID
		return stubs[0].ClientStatus == api.AllocClientStatusRunning, allocProgress(stubs)
	})
	a, _, err := c.Allocations().Info(running, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// allocProgress describes where a job's allocs are (a stalled runJob
// says whether the client never got the alloc, or got it and its task did
// not start).
func allocProgress(stubs []*api.AllocationListStub) string {
	var parts []string
	for _, a := range stubs {
		desc := fmt.Sprintf("alloc %.8s on node %.8s: status %s", a.ID, a.NodeID, a.ClientStatus)
		for name, ts := range a.TaskStates {
			desc += fmt.Sprintf("; task %s %s", name, ts.State)
			if n := len(ts.Events); n > 0 {
				desc += fmt.Sprintf(" (last event %s: %s)", ts.Events[n-1].Type, ts.Events[n-1].DisplayMessage)
			}
		}
		parts = append(parts, desc)
	}
	return strings.Join(parts, " | ")
}

// readLogs reads a non-followed log stream to its end.
func readLogs(t *testing.T, c *api.Client, a *api.Allocation, typ, origin string, offset int64) string {
	t.Helper()
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Logs(a, false, "t", typ, origin, offset, cancel, nil)
	var b strings.Builder
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return b.String()
			}
			b.Write(f.Data)
		case err := <-errs:
			t.Fatalf("logs: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("logs: stream did not end; got %q", b.String())
		}
	}
}

// eventually retries f until it returns "" (f's answer is why not yet).
func eventually(t *testing.T, d time.Duration, f func() string) {
	t.Helper()
	testutil.WaitFor(t, d, "the condition", func() (bool, string) {
		why := f()
		return why == "", why
	})
}

// rawGet issues GET path?query against an agent and returns status and body.
func rawGet(t *testing.T, addr, path string, q url.Values) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestClientLogs_ReadFollowPlainAndOffsets(t *testing.T) {
	a, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("logs", `echo hello; echo oops >&2; i=0; while true; do echo line $i; i=$((i+1)); sleep 0.1; done`))
	eventually(t, 10*time.Second, func() string {
		if out := readLogs(t, c, alloc, "stdout", api.OriginStart, 0); !strings.HasPrefix(out, "hello\nline 0\n") {
			return "stdout so far: " + out
		}
		if out := readLogs(t, c, alloc, "stderr", api.OriginStart, 0); out != "oops\n" {
			return "stderr so far: " + out
		}
		return ""
	})
	if out := readLogs(t, c, alloc, "stdout", api.OriginStart, 2); !strings.HasPrefix(out, "llo\n") {
		t.Errorf("offset 2 from start: %q", out)
	}
	if out := readLogs(t, c, alloc, "stderr", api.OriginEnd, 3); out != "ps\n" {
		t.Errorf("3 from end: %q", out)
	}

	// follow keeps delivering new lines.
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Logs(alloc, true, "t", "stdout", api.OriginEnd, 0, cancel, nil)
	var got strings.Builder
	for lines := 0; lines < 5; {
		select {
		case f := <-frames:
			got.Write(f.Data)
			lines = strings.Count(got.String(), "\n")
		case err := <-errs:
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatalf("follow: only %q", got.String())
		}
	}

	code, body := rawGet(t, a.HTTPAddr(), "/v1/client/fs/logs/"+alloc.ID, url.Values{"task": {"t"}, "type": {"stderr"}, "plain": {"true"}})
	if code != 200 || body != "oops\n" {
		t.Errorf("plain: %d %q", code, body)
	}
}

func TestClientLogs_BadParamsAndUnknowns(t *testing.T) {
	a, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("bad", `sleep 100`))
	path := "/v1/client/fs/logs/" + alloc.ID
	for _, tc := range []struct {
		path string
		q    url.Values
		code int
	}{
		{path, url.Values{"type": {"stdout"}}, 400},
		{path, url.Values{"task": {"t"}, "type": {"stdin"}}, 400},
		{path, url.Values{"task": {"t"}, "type": {"stdout"}, "origin": {"middle"}}, 400},
		{path, url.Values{"task": {"t"}, "type": {"stdout"}, "offset": {"-1"}}, 400},
		{path, url.Values{"task": {"t"}, "type": {"stdout"}, "follow": {"maybe"}}, 400},
		{path, url.Values{"task": {"nope"}, "type": {"stdout"}}, 404},
		{"/v1/client/fs/logs/00000000-0000-0000-0000-000000000000", url.Values{"task": {"t"}, "type": {"stdout"}}, 404},
		{path, url.Values{"task": {"t"}, "type": {"stdout"}}, 200},
	} {
		if code, body := rawGet(t, a.HTTPAddr(), tc.path, tc.q); code != tc.code {
			t.Errorf("%s?%s: %d %q, want %d", tc.path, tc.q.Encode(), code, body, tc.code)
		}
	}
}

func TestClientFS_ListStatCatAndEscapes(t *testing.T) {
	a, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("fs", `echo data > local/out.txt; ln -s /etc local/etc; ln -s out.txt local/link; sleep 100`))
	eventually(t, 10*time.Second, func() string {
		if _, _, err := c.AllocFS().Stat(alloc, "t/local/link", nil); err != nil {
			return err.Error()
		}
		return ""
	})
	files, _, err := c.AllocFS().List(alloc, "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[f.Name] = f.IsDir
	}
	if !names["alloc"] || !names["t"] {
		t.Errorf("ls / = %v", names)
	}
	fi, _, err := c.AllocFS().Stat(alloc, "t/local/out.txt", nil)
	if err != nil || fi.IsDir || fi.Size != 5 || !strings.HasPrefix(fi.ContentType, "text/plain") {
		t.Errorf("stat = %+v %v", fi, err)
	}
	for _, p := range []string{"t/local/out.txt", "t/local/link"} {
		rc, err := c.AllocFS().Cat(alloc, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "data\n" {
			t.Errorf("cat %s = %q", p, b)
		}
	}
	for p, want := range map[string]int{
		"../../../../etc/passwd": 400, "/t/../../x": 400, "t/local/etc/passwd": 400, "t/local/etc": 400,
		"t/local/missing": 404, "t/local": 400,
	} {
		if code, body := rawGet(t, a.HTTPAddr(), "/v1/client/fs/cat/"+alloc.ID, url.Values{"path": {p}}); code != want {
			t.Errorf("cat %s: %d %q, want %d", p, code, body, want)
		}
	}
	if code, _ := rawGet(t, a.HTTPAddr(), "/v1/client/fs/ls/"+alloc.ID, url.Values{"path": {".."}}); code != 400 {
		t.Errorf("ls ..: %d", code)
	}
}

func TestClientAlloc_StatsRestartSignal(t *testing.T) {
	_, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("ctl", `trap 'echo got-usr1' USR1; while true; do sleep 0.1; done`))
	usage, err := c.Allocations().Stats(alloc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tu := usage.Tasks["t"]; tu == nil || tu.ResourceUsage.MemoryStats.RSS == 0 || usage.ResourceUsage.MemoryStats.RSS == 0 {
		t.Fatalf("stats = %+v", usage)
	}
	if err := c.Allocations().Signal(alloc, nil, "t", "SIGUSR1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() string {
		out := readLogs(t, c, alloc, "stdout", api.OriginStart, 0)
		if !strings.Contains(out, "got-usr1") {
			return "stdout: " + out
		}
		return ""
	})
	for _, bad := range []string{"SIGNOPE", ""} {
		if err := c.Allocations().Signal(alloc, nil, "t", bad); err == nil || !strings.Contains(err.Error(), "400") {
			t.Errorf("signal %q: %v", bad, err)
		}
	}
	if err := c.Allocations().Signal(alloc, nil, "nope", "SIGUSR1"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("signal unknown task: %v", err)
	}
	if err := c.Allocations().Restart(alloc, "t", nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, func() string {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return err.Error()
		}
		if ts := a.TaskStates["t"]; ts == nil || ts.Restarts < 1 || ts.State != "running" {
			return "task state not restarted and running"
		}
		return ""
	})
}

// clientOnlyAgent starts a second node: a dev-mode client (raw_exec and
// the mock driver on, tasks stopped on shutdown) with no server,
// registered with the servers at serverRPC (failing over between them),
// presenting the test agents' node credential.
func clientOnlyAgent(t *testing.T, serverRPC ...string) *Agent {
	return clientOnlyAgentWith(t, nil, serverRPC...)
}

// clientOnlyAgentWith is clientOnlyAgent with a config change.
func clientOnlyAgentWith(t *testing.T, mutate func(*config.Config), serverRPC ...string) *Agent {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Name = "second"
	cfg.Server.Enabled = false
	cfg.Client.Servers = serverRPC
	cfg.Client.NodeRegistrationToken = testNodeCredential
	cfg.DataDir = testutil.DataDir(t)
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	if mutate != nil {
		mutate(cfg)
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("start client agent: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a
}

func TestClientForwarding_AnyAgentAnswers(t *testing.T) {
	first, c := clientTestAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	job := shellJob("fwd", `echo from-second; sleep 100`)
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)
	localJob := shellJob("local", `sleep 100`)
	localJob.Constrain(api.NewConstraint("${node.unique.id}", "=", first.Client().NodeID()))
	local := runJob(t, c, localJob)
	if alloc.NodeID != second.Client().NodeID() || local.NodeID != first.Client().NodeID() {
		t.Fatalf("placement: fwd on %s, local on %s", alloc.NodeID, local.NodeID)
	}

	usage, err := c.Allocations().Stats(alloc, nil) // through the first agent
	if err != nil || usage.Tasks["t"] == nil {
		t.Fatalf("forwarded stats: %+v %v", usage, err)
	}
	q := url.Values{"task": {"t"}, "type": {"stdout"}, "plain": {"true"}}
	eventually(t, 10*time.Second, func() string {
		if code, body := rawGet(t, first.HTTPAddr(), "/v1/client/fs/logs/"+alloc.ID, q); code != 200 || body != "from-second\n" {
			return fmt.Sprintf("forwarded logs: %d %q", code, body)
		}
		return ""
	})
	// A followed stream passes through the proxy frame by frame.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+first.HTTPAddr()+"/v1/client/fs/logs/"+alloc.ID+"?task=t&type=stdout&follow=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var frame api.StreamFrame
	if err := json.NewDecoder(resp.Body).Decode(&frame); err != nil || string(frame.Data) != "from-second\n" {
		t.Errorf("forwarded follow: %+v %v", frame, err)
	}
	resp.Body.Close()
	cancel()

	// A client-only agent knows only its own allocs.
	if code, body := rawGet(t, second.HTTPAddr(), "/v1/client/fs/logs/"+local.ID, q); code != 404 {
		t.Errorf("client-only agent, other node's alloc: %d %q", code, body)
	}
	if code, _ := rawGet(t, first.HTTPAddr(), "/v1/client/allocation/00000000-0000-0000-0000-000000000000/stats", nil); code != 404 {
		t.Errorf("unknown alloc: %d", code)
	}

	// The node's agent is gone: the server cannot reach it.
	second.Shutdown(context.Background())
	code, body := rawGet(t, first.HTTPAddr(), "/v1/client/allocation/"+alloc.ID+"/stats", nil)
	if code != http.StatusBadGateway || !strings.Contains(body, second.HTTPAddr()) {
		t.Errorf("unreachable node: %d %q", code, body)
	}
}
