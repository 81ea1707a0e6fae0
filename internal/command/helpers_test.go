package command

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// testAgent starts an in-process agent on free ports and returns its
// address. Only the core scheduler runs unless mutate changes that, so job
// evals stay pending and output is deterministic.
// clientAgent starts an agent that also runs a client, for the commands
// about tasks; its data dir's removal retries (testutil.DataDir).
func clientAgent(t *testing.T) (string, *api.Client) {
	return testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
	})
}

// sleepingJob is a one-task raw_exec service job whose task sleeps; the
// caller gives the task what the command under test needs and adds it to
// a group.
func sleepingJob(id string) (*api.Job, *api.Task) {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	task := api.NewTask("t", "raw_exec")
	task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", "sleep 100"}}
	task.Require(&api.Resources{CPU: new(50), MemoryMB: new(32)})
	task.KillTimeout = new(time.Second)
	return job, task
}

func testAgent(t *testing.T, mutate func(*config.Config)) (string, *api.Client) {
	t.Helper()
	a := agenttest.Start(t, nil, func(cfg *config.Config) {
		cfg.Client.Enabled = false
		cfg.Server.EnabledSchedulers = []string{"_core"}
		if mutate != nil {
			mutate(cfg)
		}
	})
	return "http://" + a.HTTPAddr(), agenttest.Client(t, a)
}

// result is one CLI invocation's outcome.
type result struct {
	stdout, stderr string
	code           int
}

// run invokes the CLI in-process with times and durations replaced by
// fixed strings of a realistic width, so columns still line up.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb, func(string) string { return "" })
	e.relTime = func(time.Time) string { return "1m ago" }
	e.absTimeFmt = func(time.Time) string { return "2026-01-02T03:04:05Z" }
	e.dur = func(time.Duration) string { return "1ms" }
	code := e.dispatch(args)
	return result{out.String(), errb.String(), code}
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	shortRE = regexp.MustCompile(`\b[0-9a-f]{8}\b`)
	portRE  = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	// Index-like numbers in JSON vary with raft timing.
	indexRE = regexp.MustCompile(`("(?:Create|Modify|JobModify|JobCreate|Snapshot|Submit|JobSpecModify)(?:Index|Time)": )\d+`)
	nanosRE = regexp.MustCompile(`("(?:Time|CreateTime|ModifyTime|SubmitTime)": )\d{16,}`)
	// Wall-clock instants (a deployment's progress deadline).
	rfc3339RE = regexp.MustCompile(`\b(?:19|20)\d{2}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)
)

// normalise replaces IDs by same-width placeholders numbered in order of
// first appearance (a short ID maps to its full ID's number), and ports,
// indexes and timestamps by fixed values.
func normalise(s string) string {
	ids := map[string]int{}
	num := func(prefix string) int {
		if n, ok := ids[prefix]; ok {
			return n
		}
		ids[prefix] = len(ids) + 1
		return ids[prefix]
	}
	s = uuidRE.ReplaceAllStringFunc(s, func(id string) string {
		return fmt.Sprintf("id%06d-0000-0000-0000-000000000000", num(id[:8]))
	})
	s = shortRE.ReplaceAllStringFunc(s, func(id string) string {
		return fmt.Sprintf("id%06d", num(id))
	})
	s = portRE.ReplaceAllStringFunc(s, func(hp string) string {
		if hp == "127.0.0.1:4646" { // the documented default stays visible
			return hp
		}
		return "127.0.0.1:PORT"
	})
	s = indexRE.ReplaceAllString(s, "${1}1")
	s = rfc3339RE.ReplaceAllString(s, "2030-01-01T00:00:00Z")
	return nanosRE.ReplaceAllString(s, "${1}1000000000000000000")
}

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name string, r result) {
	t.Helper()
	got := normalise(fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr))
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden (-want +got):\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}
