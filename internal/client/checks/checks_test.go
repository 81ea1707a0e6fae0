package checks

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func allocWith(tg *structs.TaskGroup, ar *structs.AllocatedResources) *structs.Allocation {
	return &structs.Allocation{ID: "a1", TaskGroup: tg.Name, AllocatedResources: ar,
		Job: &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{tg}}}
}

func TestFromAlloc_ResolvesPortsAndSkipsWhatItCannotRun(t *testing.T) {
	tg := &structs.TaskGroup{Name: "g",
		Services: []*structs.Service{{Name: "web", PortLabel: "http", Checks: []*structs.ServiceCheck{
			{Name: "alive", Type: TypeHTTP, Path: "/health", Interval: 100 * time.Millisecond},
			{Name: "admin", Type: TypeTCP, PortLabel: "admin"},
			{Type: TypeTCP, PortLabel: "9999"},
			{Name: "script", Type: "script"},
			{Name: "lost", Type: TypeTCP, PortLabel: "nope"},
		}}},
		Tasks: []*structs.Task{
			{Name: "app", Services: []*structs.Service{{Name: "db", PortLabel: "db", Checks: []*structs.ServiceCheck{{Name: "alive", Type: TypeTCP}}}}},
			{Name: "init", Lifecycle: &structs.TaskLifecycleConfig{Hook: structs.TaskLifecycleHookPrestart},
				Services: []*structs.Service{{Name: "x", PortLabel: "db", Checks: []*structs.ServiceCheck{{Type: TypeTCP}}}}},
		},
	}
	ar := &structs.AllocatedResources{
		Shared: structs.AllocatedSharedResources{Ports: []structs.AllocatedPortMapping{
			{Label: "http", Value: 20001, HostIP: "10.0.0.5"}, {Label: "admin", Value: 20002, HostIP: "0.0.0.0"}}},
		Tasks: map[string]*structs.AllocatedTaskResources{"app": {Networks: []*structs.NetworkResource{
			{IP: "10.0.0.6", DynamicPorts: []structs.Port{{Label: "db", Value: 20003}}}}}},
	}
	got := FromAlloc(allocWith(tg, ar))
	want := []struct{ id, addr string }{
		{"group/web/alive", "10.0.0.5:20001"},
		{"group/web/admin", "127.0.0.1:20002"},
		{`group/web/service: "web" check`, "127.0.0.1:9999"},
		{"group/web/script", ""}, // runs in a task: no address
		{"group/web/lost", ""},
		{"task/app/db/alive", "10.0.0.6:20003"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d checks: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Address != w.addr {
			t.Errorf("check %d = %q at %q, want %q at %q", i, got[i].ID, got[i].Address, w.id, w.addr)
		}
	}
	if got[0].Interval != MinInterval || got[1].Interval != DefaultInterval || got[1].Timeout != DefaultTimeout {
		t.Errorf("timing not defaulted: %+v %+v", got[0], got[1])
	}
	if !strings.Contains(got[4].PortNote, "nope") {
		t.Errorf("port note = %q", got[4].PortNote)
	}
}

// newTestChecker runs checks on a manual clock and counts change calls.
func newTestChecker(defs ...Check) (*Checker, *clock.Manual, *atomic.Int32) {
	c := clock.NewManual(epoch)
	var changes atomic.Int32
	ch := New(Config{Clock: c, OnChange: func() { changes.Add(1) }}, defs)
	return ch, c, &changes
}

func TestChecker_HTTPStatusesOnTheClock(t *testing.T) {
	var code atomic.Int32
	code.Store(http.StatusInternalServerError)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(int(code.Load()))
		_, _ = w.Write([]byte("state"))
	}))
	defer srv.Close()
	def := Check{ID: "c", Type: TypeHTTP, Path: "health", Address: srv.Listener.Addr().String(), Interval: time.Second, Timeout: time.Second}
	ch, c, changes := newTestChecker(def)
	defer ch.Stop()

	if r := ch.Snapshot()[0]; r.Status != StatusPending {
		t.Fatalf("before start: %+v", r)
	}
	ch.Start()
	c.Advance(0)
	r := ch.Snapshot()[0]
	if r.Status != StatusFailing || !strings.Contains(r.Output, "500") || !strings.Contains(r.Output, "state") || r.StatusCode != 500 {
		t.Fatalf("first run: %+v", r)
	}
	code.Store(http.StatusTemporaryRedirect) // 3xx counts as up; not followed
	c.Advance(time.Second)
	r = ch.Snapshot()[0]
	if r.Status != StatusPassing || !r.Since.Equal(epoch.Add(time.Second)) || r.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("after recovery: %+v", r)
	}
	c.Advance(time.Second)
	if r2 := ch.Snapshot()[0]; !r2.Since.Equal(r.Since) || !r2.Timestamp.Equal(epoch.Add(2*time.Second)) {
		t.Fatalf("passing streak broken: %+v", r2)
	}
	if n := changes.Load(); n != 2 {
		t.Fatalf("change callbacks = %d, want 2 (failing, passing)", n)
	}
	if since, ok := PassingSince(ch.Snapshot()); !ok || !since.Equal(epoch.Add(time.Second)) {
		t.Fatalf("PassingSince = %v %v", since, ok)
	}
}

func TestChecker_TCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
	up := Check{ID: "up", Type: TypeTCP, Address: ln.Addr().String(), Interval: time.Second, Timeout: time.Second}
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	downAddr := closed.Addr().String()
	_ = closed.Close()
	down := Check{ID: "down", Type: TypeTCP, Address: downAddr, Interval: time.Second, Timeout: time.Second}
	ch, c, _ := newTestChecker(up, down)
	ch.Start()
	c.Advance(0)
	rs := ch.Snapshot()
	if rs[0].Status != StatusPassing || rs[1].Status != StatusFailing {
		t.Fatalf("results: %+v", rs)
	}
	if _, ok := PassingSince(rs); ok {
		t.Fatal("PassingSince true with a failing check")
	}
	_ = ln.Close()
	c.Advance(time.Second)
	if r := ch.Snapshot()[0]; r.Status != StatusFailing {
		t.Fatalf("closed listener still passing: %+v", r)
	}
	ch.Stop()
	if c.Pending() != 0 {
		t.Fatalf("%d runs still scheduled after Stop", c.Pending())
	}
}

func TestChecker_UnresolvedPortFails(t *testing.T) {
	ch, c, _ := newTestChecker(Check{ID: "x", Type: TypeTCP, PortNote: "port label \"nope\" not found", Interval: time.Second, Timeout: time.Second})
	defer ch.Stop()
	ch.Start()
	c.Advance(0)
	if r := ch.Snapshot()[0]; r.Status != StatusFailing || !strings.Contains(r.Output, "nope") {
		t.Fatalf("result: %+v", r)
	}
}
