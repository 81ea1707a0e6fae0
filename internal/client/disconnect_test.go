package client

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// A client that cannot reach any server stops the allocs whose group has
// disconnect.stop_on_client_after once that long has passed since the
// last successful heartbeat; allocs without it keep running.
func TestStopOnClientAfter_StopsAllocsWhenServersUnreachable(t *testing.T) {
	h := newHarness(t)
	h.start()
	stopAfter := 30 * time.Second
	guarded := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_for": "1h"}})
	guarded.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: time.Hour, StopOnClientAfter: &stopAfter}
	plain := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_for": "1h"}})
	plain.ID = "job2"
	h.fs.upsert(newAlloc("guarded", guarded), newAlloc("plain", plain))
	h.reported("guarded", structs.AllocClientStatusRunning)
	h.reported("plain", structs.AllocClientStatusRunning)

	h.fs.mu.Lock()
	h.fs.unreachable = true
	lost := lastContact(h.fs)
	h.fs.mu.Unlock()
	h.advanceUntil("the guarded alloc stopped", time.Second, func() bool {
		st, _ := h.c.AllocState("guarded")
		return st != nil && st.ClientStatus == structs.AllocClientStatusComplete
	})
	if since := h.clock.Now().Sub(lost); since < stopAfter {
		t.Fatalf("stopped %s after the last answered heartbeat, before stop_on_client_after (%s)", since, stopAfter)
	}
	if st, _ := h.c.AllocState("plain"); st.ClientStatus != structs.AllocClientStatusRunning {
		t.Fatalf("alloc without stop_on_client_after is %s", st.ClientStatus)
	}
}

// After the servers marked an alloc unknown (the node was disconnected),
// the client reports its real status again.
func TestUnknownAllocReportedAgainAfterReconnect(t *testing.T) {
	h := newHarness(t)
	h.start()
	job := mockJob(structs.JobTypeService, &structs.Task{Name: "web", Config: map[string]any{"run_for": "1h"}})
	h.fs.upsert(newAlloc("a1", job))
	h.reported("a1", structs.AllocClientStatusRunning)
	_, _, before := h.fs.counts()
	h.fs.mu.Lock()
	unknown := h.fs.allocs["a1"].Copy()
	h.fs.mu.Unlock()
	unknown.ClientStatus = structs.AllocClientStatusUnknown
	h.fs.upsert(unknown)
	h.advanceUntil("running reported again", 100*time.Millisecond, func() bool {
		_, _, n := h.fs.counts()
		got := h.fs.lastUpdate("a1")
		return n > before && got != nil && got.ClientStatus == structs.AllocClientStatusRunning
	})
}

// lastContact is when the fake servers last answered the client (a
// registration or a heartbeat); f.mu must be held.
func lastContact(f *fakeServers) time.Time {
	var last time.Time
	for _, ts := range [][]time.Time{f.registerTimes, f.heartbeatTimes} {
		if n := len(ts); n > 0 && ts[n-1].After(last) {
			last = ts[n-1]
		}
	}
	return last
}
