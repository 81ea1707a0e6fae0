package allocrunner

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// Timing of the health tests: a 1s check interval against 5s of
// min_healthy_time and a 30s deadline, stepped 250ms at a time.
const (
	testMinHealthy = 5 * time.Second
	testDeadline   = 30 * time.Second
	testInterval   = time.Second
	testStep       = 250 * time.Millisecond
)

type healthHarness struct {
	t     *testing.T
	clock *clock.Manual
	r     *Runner

	mu   sync.Mutex
	last *structs.Allocation
}

// runAlloc runs a one-task mock alloc in a deployment whose group has
// services and the update health mode given; port is granted as "http".
func runAlloc(t *testing.T, mode string, port int, services []*structs.Service, mutate ...func(*structs.Allocation)) *healthHarness {
	t.Helper()
	h := &healthHarness{t: t, clock: clock.NewManual(epoch)}
	reg, err := drivers.NewRegistry(map[string]drivers.Factory{mock.Name: mock.New}, nil, drivers.Env{Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	task := &structs.Task{Name: "web", Driver: mock.Name, Config: map[string]any{}, KillTimeout: time.Second}
	tg := &structs.TaskGroup{Name: "g", Count: 1, Tasks: []*structs.Task{task}, Services: services,
		RestartPolicy: &structs.RestartPolicy{Interval: time.Minute, Mode: structs.RestartPolicyModeFail},
		Update:        &structs.UpdateStrategy{MaxParallel: 1, HealthCheck: mode, MinHealthyTime: testMinHealthy, HealthyDeadline: testDeadline}}
	a := &structs.Allocation{ID: "a1", Namespace: "default", JobID: "j", TaskGroup: "g", DeploymentID: "d1",
		DesiredStatus: structs.AllocDesiredStatusRun,
		Job:           &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeService, Namespace: "default", TaskGroups: []*structs.TaskGroup{tg}},
		AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{
			Ports: []structs.AllocatedPortMapping{{Label: "http", Value: port, HostIP: "127.0.0.1"}}}},
	}
	for _, m := range mutate {
		m(a)
	}
	h.r = New(Config{Alloc: a, AllocDirRoot: t.TempDir(), Drivers: reg, Clock: h.clock,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnUpdate: h.onUpdate})
	h.r.Run()
	t.Cleanup(func() { _ = h.r.Destroy() })
	return h
}

func (h *healthHarness) onUpdate(a *structs.Allocation) {
	h.mu.Lock()
	h.last = a
	h.mu.Unlock()
}

func (h *healthHarness) deploymentStatus() *structs.AllocDeploymentStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil || h.last.DeploymentStatus == nil || h.last.DeploymentStatus.Healthy == nil {
		return nil
	}
	return h.last.DeploymentStatus
}

// advanceUntil steps the clock until cond holds, pausing between steps so
// the runner's loop can react to what the step changed.
func (h *healthHarness) advanceUntil(what string, cond func() bool) {
	h.t.Helper()
	testutil.AdvanceUntil(h.t, h.clock, testStep, 10*time.Second, what, func() (bool, string) {
		return cond(), fmt.Sprintf("at +%v", h.clock.Now().Sub(epoch))
	})
}

// decision runs the clock until health is decided.
func (h *healthHarness) decision() *structs.AllocDeploymentStatus {
	h.t.Helper()
	h.advanceUntil("health decided", func() bool { return h.deploymentStatus() != nil })
	return h.deploymentStatus()
}

func (h *healthHarness) startedAt() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last.TaskStates["web"].StartedAt
}

// statusServer answers /health with the code held in the returned value.
func statusServer(t *testing.T, code int) (port int, set *atomic.Int32) {
	t.Helper()
	set = &atomic.Int32{}
	set.Store(int32(code))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(int(set.Load()))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port, set
}

func httpService() []*structs.Service {
	return []*structs.Service{{Name: "web", PortLabel: "http", Provider: "nomad", Checks: []*structs.ServiceCheck{
		{Name: "alive", Type: "http", Path: "/health", Interval: testInterval, Timeout: time.Second}}}}
}

func mustHealthy(t *testing.T, ds *structs.AllocDeploymentStatus, notBefore time.Time) {
	t.Helper()
	if !*ds.Healthy {
		t.Fatalf("unhealthy at +%v", ds.Timestamp.Sub(epoch))
	}
	if ds.Timestamp.Before(notBefore) {
		t.Fatalf("healthy at +%v, before +%v", ds.Timestamp.Sub(epoch), notBefore.Sub(epoch))
	}
}

func TestHealth_PassingHTTPCheck(t *testing.T) {
	port, _ := statusServer(t, http.StatusOK)
	h := runAlloc(t, structs.UpdateHealthCheckChecks, port, httpService())
	ds := h.decision()
	rs := h.r.CheckResults()
	if len(rs) != 1 || rs[0].Status != checks.StatusPassing {
		t.Fatalf("check results: %+v", rs)
	}
	mustHealthy(t, ds, rs[0].Since.Add(testMinHealthy))
	mustHealthy(t, ds, h.startedAt().Add(testMinHealthy))
	if ds.Timestamp.After(rs[0].Since.Add(testMinHealthy + 5*time.Second)) {
		t.Fatalf("healthy late: at +%v, check passing since +%v", ds.Timestamp.Sub(epoch), rs[0].Since.Sub(epoch))
	}
}

func TestHealth_FailingCheckUntilDeadline(t *testing.T) {
	port, _ := statusServer(t, http.StatusServiceUnavailable)
	h := runAlloc(t, "", port, httpService()) // "" is Nomad's default: checks
	ds := h.decision()
	if *ds.Healthy || ds.Timestamp.Before(epoch.Add(testDeadline)) {
		t.Fatalf("decision %v at +%v, want unhealthy after the deadline", *ds.Healthy, ds.Timestamp.Sub(epoch))
	}
	if rs := h.r.CheckResults(); rs[0].Status != checks.StatusFailing {
		t.Fatalf("check results: %+v", rs)
	}
}

func TestHealth_CheckRecoversWithinDeadline(t *testing.T) {
	port, code := statusServer(t, http.StatusInternalServerError)
	h := runAlloc(t, structs.UpdateHealthCheckChecks, port, httpService())
	recoverAt := epoch.Add(12 * time.Second) // after the tasks' min_healthy_time
	h.advanceUntil("recovery time", func() bool { return !h.clock.Now().Before(recoverAt) })
	if ds := h.deploymentStatus(); ds != nil {
		t.Fatalf("decided while the check failed: %+v", ds)
	}
	code.Store(http.StatusOK)
	ds := h.decision()
	rs := h.r.CheckResults()
	if !rs[0].Since.After(recoverAt.Add(-testStep)) {
		t.Fatalf("check passing since +%v, before the recovery", rs[0].Since.Sub(epoch))
	}
	mustHealthy(t, ds, rs[0].Since.Add(testMinHealthy))
}

func TestHealth_TCPCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
	svc := []*structs.Service{{Name: "db", PortLabel: "http", Checks: []*structs.ServiceCheck{
		{Name: "port", Type: "tcp", Interval: testInterval, Timeout: time.Second}}}}
	h := runAlloc(t, structs.UpdateHealthCheckChecks, ln.Addr().(*net.TCPAddr).Port, svc)
	ds := h.decision()
	mustHealthy(t, ds, h.r.CheckResults()[0].Since.Add(testMinHealthy))
}

func TestHealth_TaskStatesIgnoresChecks(t *testing.T) {
	port, _ := statusServer(t, http.StatusInternalServerError)
	h := runAlloc(t, structs.UpdateHealthCheckTaskStates, port, httpService())
	ds := h.decision()
	mustHealthy(t, ds, h.startedAt().Add(testMinHealthy))
	if ds.Timestamp.After(h.startedAt().Add(testMinHealthy + 5*time.Second)) {
		t.Fatalf("healthy at +%v, want right after min_healthy_time", ds.Timestamp.Sub(epoch))
	}
}

func TestHealth_ChecksModeWithoutChecksUsesTaskStates(t *testing.T) {
	// A ttl check (Consul's) is not run by this client, so the group has
	// no checks to wait for.
	svc := []*structs.Service{{Name: "web", PortLabel: "http", Checks: []*structs.ServiceCheck{{Name: "s", Type: "ttl"}}}}
	h := runAlloc(t, structs.UpdateHealthCheckChecks, 1, svc)
	ds := h.decision()
	mustHealthy(t, ds, h.startedAt().Add(testMinHealthy))
	if h.r.CheckResults() != nil {
		t.Fatalf("results for an unsupported check: %+v", h.r.CheckResults())
	}
}

func TestHealth_ManualNeverDecides(t *testing.T) {
	port, _ := statusServer(t, http.StatusOK)
	h := runAlloc(t, structs.UpdateHealthCheckManual, port, httpService())
	h.advanceUntil("past the deadline", func() bool { return h.clock.Now().After(epoch.Add(testDeadline + time.Second)) })
	if ds := h.deploymentStatus(); ds != nil {
		t.Fatalf("manual mode decided: %+v", ds)
	}
}

// outsideDeployment takes the alloc out of any deployment and gives its
// group a migrate block instead of an update block.
func outsideDeployment(jobType string) func(*structs.Allocation) {
	return func(a *structs.Allocation) {
		a.DeploymentID, a.Job.Type = "", jobType
		tg := a.Job.TaskGroups[0]
		tg.Update = nil
		tg.Migrate = &structs.MigrateStrategy{MaxParallel: 1, HealthCheck: structs.UpdateHealthCheckTaskStates,
			MinHealthyTime: testMinHealthy, HealthyDeadline: testDeadline}
	}
}

// A service alloc outside a deployment (a drain's replacement) gets its
// health from the migrate block, as in Nomad: the drainer waits for it
// before migrating the next alloc of the group.
func TestHealth_OutsideADeploymentUsesTheMigrateBlock(t *testing.T) {
	h := runAlloc(t, "", 1, nil, outsideDeployment(structs.JobTypeService))
	ds := h.decision()
	mustHealthy(t, ds, h.startedAt().Add(testMinHealthy))
	if ds.Timestamp.After(h.startedAt().Add(testMinHealthy + 5*time.Second)) {
		t.Fatalf("healthy at +%v, want right after the migrate block's min_healthy_time", ds.Timestamp.Sub(epoch))
	}
}

// Only service allocs are judged outside a deployment: nothing waits on
// the health of a batch alloc.
func TestHealth_BatchOutsideADeploymentNeverDecides(t *testing.T) {
	h := runAlloc(t, "", 1, nil, outsideDeployment(structs.JobTypeBatch))
	h.advanceUntil("past the deadline", func() bool { return h.clock.Now().After(epoch.Add(testDeadline + time.Second)) })
	if ds := h.deploymentStatus(); ds != nil {
		t.Fatalf("batch alloc outside a deployment decided: %+v", ds)
	}
}
