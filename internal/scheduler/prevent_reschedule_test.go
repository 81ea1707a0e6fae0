package scheduler

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// TestPreventRescheduleOnLost checks a group with prevent_reschedule_on_lost
// against the same group without it, through the service scheduler: when
// its node goes down (or stays disconnected past lost_after) the alloc is
// marked unknown and kept (no replacement, no stop); a second eval writes
// nothing more; once the node is back it is an ordinary alloc again.
// Without the flag it is stopped as lost and replaced.
func TestPreventRescheduleOnLost(t *testing.T) {
	cases := []struct {
		name       string
		prevent    bool
		disconnect *structs.DisconnectStrategy
		status     string
		after      time.Duration
		wantKept   bool // the original stays, unknown, and nothing is placed
	}{
		{"down, prevented", true, nil, structs.NodeStatusDown, 0, true},
		{"down, not prevented", false, nil, structs.NodeStatusDown, 0, false},
		{"disconnected within lost_after, prevented: unknown, not replaced", true, &structs.DisconnectStrategy{LostAfter: 10 * time.Minute}, structs.NodeStatusDisconnected, time.Minute, true},
		{"disconnected past lost_after, prevented", true, &structs.DisconnectStrategy{LostAfter: 10 * time.Minute}, structs.NodeStatusDisconnected, 11 * time.Minute, true},
		{"disconnected past lost_after, not prevented", false, &structs.DisconnectStrategy{LostAfter: 10 * time.Minute}, structs.NodeStatusDisconnected, 11 * time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ns := nodes(h, 2)
			job := mockJob("web", 1)
			job.TaskGroups[0].PreventRescheduleOnLost = tc.prevent
			job.TaskGroups[0].Disconnect = tc.disconnect
			job = h.upsertJob(job)
			orig := h.seedAllocs(job, ns[:1], 0)[0]
			h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, tc.status, t0.Unix(), nil))
			h.now = t0.Add(tc.after)
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))

			stored, _ := h.store.AllocByID(nil, orig.ID)
			live := h.liveAllocs(job)
			if !tc.wantKept {
				if stored.ClientStatus != structs.AllocClientStatusLost || len(live) != 1 || live[0].ID == orig.ID {
					t.Fatalf("original %s, live %d: want it lost and replaced", stored.ClientStatus, len(live))
				}
				return
			}
			if stored.ClientStatus != structs.AllocClientStatusUnknown || stored.DesiredStatus != structs.AllocDesiredStatusRun ||
				len(live) != 1 || live[0].ID != orig.ID {
				t.Fatalf("original %s/%s, %d live allocs: want it alone, unknown and kept", stored.ClientStatus, stored.DesiredStatus, len(live))
			}
			if h.lastEval().Status != structs.EvalStatusComplete || len(h.lastEval().FailedTGAllocs) != 0 {
				t.Fatalf("eval %s, failed %v", h.lastEval().Status, h.lastEval().FailedTGAllocs)
			}
			plans := len(h.plans)
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			if len(h.plans) != plans || len(h.liveAllocs(job)) != 1 {
				t.Fatalf("a second eval submitted %d plans, %d live", len(h.plans)-plans, len(h.liveAllocs(job)))
			}

			// The node is back and its client reports the alloc running.
			h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusReady, t0.Add(tc.after+time.Minute).Unix(), nil))
			h.setClient(stored, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusRunning })
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			if live := h.liveAllocs(job); len(live) != 1 || live[0].ID != orig.ID || live[0].ClientStatus != structs.AllocClientStatusRunning {
				t.Fatalf("after the node is back: %d live allocs", len(live))
			}
		})
	}
}
