package checks

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// A real gRPC server (grpc-go's own health service) answers the
// hand-made h2c call: SERVING passes, NOT_SERVING and an unknown service
// fail.
func TestChecker_GRPCHealthAgainstGRPCGo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	hs.SetServingStatus("app", healthpb.HealthCheckResponse_SERVING)

	addr := ln.Addr().String()
	whole := Check{ID: "whole", Type: TypeGRPC, Address: addr, Interval: time.Second, Timeout: 2 * time.Second}
	app := whole
	app.ID, app.GRPCService = "app", "app"
	missing := whole
	missing.ID, missing.GRPCService = "missing", "nope"
	ch, c, _ := newTestChecker(whole, app, missing)
	defer ch.Stop()
	ch.Start()
	c.Advance(0)
	rs := ch.Snapshot()
	if rs[0].Status != StatusPassing || rs[1].Status != StatusPassing || !strings.Contains(rs[1].Output, "SERVING") {
		t.Fatalf("serving: %+v", rs[:2])
	}
	if rs[2].Status != StatusFailing || !strings.Contains(rs[2].Output, "status 5") { // NOT_FOUND
		t.Fatalf("unknown service: %+v", rs[2])
	}
	hs.SetServingStatus("app", healthpb.HealthCheckResponse_NOT_SERVING)
	c.Advance(time.Second)
	if r := ch.Snapshot()[1]; r.Status != StatusFailing || !strings.Contains(r.Output, "NOT_SERVING") {
		t.Fatalf("not serving: %+v", r)
	}
}

func TestParseHealthResponse(t *testing.T) {
	cases := []struct {
		name string
		body []byte
		want uint64
		ok   bool
	}{
		{"serving", []byte{0, 0, 0, 0, 2, 0x08, 1}, 1, true},
		{"default is unknown", []byte{0, 0, 0, 0, 0}, 0, true},
		{"unknown field skipped", []byte{0, 0, 0, 0, 5, 0x12, 1, 'x', 0x08, 2}, 2, true},
		{"short", []byte{0, 0, 0}, 0, false},
		{"compressed", []byte{1, 0, 0, 0, 0}, 0, false},
		{"truncated", []byte{0, 0, 0, 0, 9, 0x08}, 0, false},
	}
	for _, tc := range cases {
		got, ok := parseHealthResponse(tc.body)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %d %v, want %d %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// fakeExec answers script checks with scripted exit codes per task.
type fakeExec struct {
	mu    sync.Mutex
	codes map[string]int
	calls [][]string
}

func (f *fakeExec) exec(_ context.Context, task string, cmd []string) (int, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, append([]string{task}, cmd...))
	code, ok := f.codes[task]
	if !ok {
		return 0, "", errors.New("no such task")
	}
	return code, "said " + strings.Join(cmd, " "), nil
}

func TestChecker_ScriptExitCodes(t *testing.T) {
	f := &fakeExec{codes: map[string]int{"ok": 0, "warn": 1, "bad": 2}}
	def := func(id, task string) Check {
		return Check{ID: id, Type: TypeScript, InTask: task, Command: "/bin/check", Args: []string{"-v"}, Interval: time.Second, Timeout: time.Second}
	}
	noTask := def("none", "")
	ch := New(Config{Clock: clock.NewManual(epoch), Exec: f.exec}, []Check{def("ok", "ok"), def("warn", "warn"), def("bad", "bad"), def("gone", "gone"), noTask})
	c := ch.cfg.Clock.(*clock.Manual)
	defer ch.Stop()
	ch.Start()
	c.Advance(0)
	want := []string{StatusPassing, StatusWarning, StatusFailing, StatusFailing, StatusFailing}
	for i, r := range ch.Snapshot() {
		if r.Status != want[i] {
			t.Errorf("%s: %s (%q), want %s", r.Check.ID, r.Status, r.Output, want[i])
		}
	}
	if r := ch.Snapshot()[0]; r.Output != "said /bin/check -v" {
		t.Errorf("output = %q", r.Output)
	}
	if r := ch.Snapshot()[4]; !strings.Contains(r.Output, "task") {
		t.Errorf("group check without task: %q", r.Output)
	}
}

// check_restart: failures inside the grace do not count; limit failures
// in a row restart the task once and start a new grace; warnings count
// unless ignored.
func TestChecker_CheckRestartCountsFailuresAfterGrace(t *testing.T) {
	f := &fakeExec{codes: map[string]int{"app": 2, "side": 1}}
	var mu sync.Mutex
	var restarts []string
	cr := &structs.CheckRestart{Limit: 3, Grace: 2 * time.Second}
	defs := []Check{
		{ID: "app", Type: TypeScript, InTask: "app", Command: "x", Interval: time.Second, Timeout: time.Second, Restart: cr},
		{ID: "side", Type: TypeScript, InTask: "side", Command: "x", Interval: time.Second, Timeout: time.Second,
			Restart: &structs.CheckRestart{Limit: 1, IgnoreWarnings: true}},
	}
	m := clock.NewManual(epoch)
	ch := New(Config{Clock: m, Exec: f.exec, Restart: func(task, reason string) {
		mu.Lock()
		defer mu.Unlock()
		restarts = append(restarts, task+": "+reason)
	}}, defs)
	defer ch.Stop()
	ch.Start()
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), restarts...)
	}
	m.Advance(0)           // t=0, in grace
	m.Advance(time.Second) // t=1, in grace
	m.Advance(time.Second) // t=2: failure 1
	m.Advance(time.Second) // t=3: failure 2
	if r := got(); len(r) != 0 {
		t.Fatalf("restarted early: %v", r)
	}
	m.Advance(time.Second) // t=4: failure 3 -> restart
	if r := got(); len(r) != 1 || !strings.Contains(r[0], `app: healthcheck: check "" unhealthy`) {
		t.Fatalf("restarts at limit: %v", r)
	}
	if ch.Snapshot()[0].Failures != 0 {
		t.Fatalf("streak not reset: %+v", ch.Snapshot()[0])
	}
	for range 3 { // t=5 in the new grace (until t=6); t=6,7 failures 1,2
		m.Advance(time.Second)
	}
	if r := got(); len(r) != 1 {
		t.Fatalf("restarted inside the new grace: %v", r)
	}
}

// The health response comes from whatever listens on the checked port:
// no input may panic the parser, and a framed message it accepts holds
// the status it reports.
func FuzzParseHealthResponse(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 2, 0x08, 1})
	f.Add([]byte{0, 0, 0, 0, 5, 0x12, 1, 'x', 0x08, 2})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		status, ok := parseHealthResponse(body)
		if !ok && status != 0 {
			t.Fatalf("rejected input reported status %d", status)
		}
	})
}
