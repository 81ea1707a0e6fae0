package client

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/client/drivers/rawexec"
	"github.com/drover-project/drover/internal/client/fingerprint"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	fixtures "github.com/drover-project/drover/internal/testutil/mock"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

type harness struct {
	t     testing.TB
	clock *clock.Manual
	fs    *fakeServers
	cfg   *Config
	c     *Client

	fpMu  sync.Mutex
	fpGen int // bump to change the fingerprint
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	c := clock.NewManual(epoch)
	h := &harness{t: t, clock: c, fs: newFakeServers(c, 10*time.Second)}
	dir := t.TempDir()
	h.cfg = &Config{
		DataDir: dir, Datacenter: "dc1", Name: "node1", Meta: map[string]string{"rack": "r1"},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Clock:  c, Servers: h.fs, Fingerprint: h.fingerprint, LogPollInterval: 10 * time.Millisecond,
	}
	return h
}

// drivers builds a registry with the mock driver on the manual clock and
// raw_exec enabled; each client gets fresh driver instances, as after a
// real restart.
func (h *harness) drivers() *drivers.Registry {
	r, err := drivers.NewRegistry(map[string]drivers.Factory{mock.Name: mock.New, rawexec.Name: rawexec.New},
		map[string]map[string]any{"raw_exec": {"enabled": true}}, drivers.Env{Clock: h.cfg.Clock})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) fingerprint(cfg fingerprint.Config) (*fingerprint.Result, error) {
	h.fpMu.Lock()
	gen := h.fpGen
	h.fpMu.Unlock()
	r := &fingerprint.Result{
		Attributes: map[string]string{"kernel.name": "linux", "unique.hostname": "host1", "cpu.numcores": "4", "fp.gen": fmt.Sprint(gen)},
		Resources:  &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: 4000}, MemoryMB: 8192},
		Drivers:    cfg.Drivers.FingerprintAll(context.Background()),
	}
	for name, info := range r.Drivers {
		if info.Healthy {
			r.Attributes["driver."+name] = "1"
		}
	}
	return r, nil
}

func (h *harness) start() *Client {
	h.t.Helper()
	cfg := *h.cfg
	cfg.Drivers = h.drivers()
	c, err := New(&cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.c = c
	h.t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// waitFor polls cond on the wall clock until it holds or 10s pass.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	testutil.WaitFor(h.t, 10*time.Second, what, cond)
}

// advanceUntil moves the manual clock in steps until cond holds, giving
// goroutines a moment between steps to arm their timers.
func (h *harness) advanceUntil(what string, step time.Duration, cond func() bool) {
	h.t.Helper()
	testutil.AdvanceUntil(h.t, h.clock, step, 15*time.Second, what, cond)
}

// reported waits (moving the clock) until the servers got an update of
// alloc id with the client status.
func (h *harness) reported(id, status string) *structs.Allocation {
	h.t.Helper()
	var got *structs.Allocation
	h.advanceUntil("alloc "+id+" reported "+status, 100*time.Millisecond, func() bool {
		got = h.fs.lastUpdate(id)
		return got != nil && got.ClientStatus == status
	})
	return got
}

// mockJob is fixtures.Job "job1" of the given type whose one group "g"
// runs the given tasks (on the mock driver unless they name one) and
// fails at a task's first failure.
func mockJob(typ string, tasks ...*structs.Task) *structs.Job {
	for _, t := range tasks {
		if t.Driver == "" {
			t.Driver = mock.Name
		}
		if t.KillTimeout == 0 {
			t.KillTimeout = 5 * time.Second
		}
	}
	j := fixtures.Job("job1")
	j.Name, j.Type = "job1", typ
	tg := j.TaskGroups[0]
	tg.Name, tg.Tasks = "g", tasks
	tg.RestartPolicy = &structs.RestartPolicy{Attempts: 0, Interval: time.Minute, Mode: structs.RestartPolicyModeFail}
	return j
}

// newAlloc is fixtures.Alloc without a node or allocated resources: the
// client tests' tasks run on their own resources.
func newAlloc(id string, job *structs.Job) *structs.Allocation {
	a := fixtures.Alloc(id, job, "")
	a.EvalID, a.AllocatedResources = "", nil
	return a
}

func eventTypes(ts *structs.TaskState) []string {
	var out []string
	for _, e := range ts.Events {
		out = append(out, e.Type)
	}
	return out
}
