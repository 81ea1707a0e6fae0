package scheduler

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func TestPickReconnected(t *testing.T) {
	at := func(id, node string, started time.Time, score float64) *structs.Allocation {
		a := &structs.Allocation{ID: id, NodeID: node,
			Metrics: &structs.AllocMetric{ScoreMetaData: []*structs.NodeScoreMeta{{NodeID: node, NormScore: score}}}}
		if !started.IsZero() {
			a.TaskStates = map[string]*structs.TaskState{"t": {StartedAt: started}}
		}
		return a
	}
	early, late := t0, t0.Add(time.Minute)
	for _, tc := range []struct {
		strategy string
		orig     *structs.Allocation
		repl     *structs.Allocation
		want     string
	}{
		{structs.ReconcileOptionKeepOriginal, at("o", "a", late, 0.1), at("r", "b", early, 0.9), "o"},
		{structs.ReconcileOptionKeepReplacement, at("o", "a", early, 0.9), at("r", "b", late, 0.1), "r"},
		{structs.ReconcileOptionLongestRunning, at("o", "a", early, 0.1), at("r", "b", late, 0.9), "o"},
		{structs.ReconcileOptionLongestRunning, at("o", "a", time.Time{}, 0.1), at("r", "b", late, 0.9), "r"},
		{structs.ReconcileOptionBestScore, at("o", "a", early, 0.2), at("r", "b", late, 0.8), "r"},
		{structs.ReconcileOptionBestScore, at("o", "a", late, 0.5), at("r", "b", early, 0.5), "o"}, // a tie keeps the original
		{"", at("o", "a", late, 0.3), at("r", "b", early, 0.6), "r"},                               // default best_score
	} {
		tg := &structs.TaskGroup{Disconnect: &structs.DisconnectStrategy{LostAfter: time.Minute, Reconcile: tc.strategy}}
		if got := pickReconnected(tg, tc.orig, tc.repl); got.ID != tc.want {
			t.Errorf("%q: kept %s, want %s", tc.strategy, got.ID, tc.want)
		}
	}
}

func TestTaskGroupDisconnectSettings(t *testing.T) {
	two := 2 * time.Minute
	no := false
	legacy := &structs.TaskGroup{MaxClientDisconnect: &two, StopAfterClientDisconnect: &two}
	if d, ok := legacy.DisconnectTimeout(); !ok || d != two || !legacy.ReplaceDisconnected() {
		t.Fatalf("max_client_disconnect: %v %v", d, ok)
	}
	if d, ok := legacy.StopOnClientDisconnect(); !ok || d != two {
		t.Fatalf("stop_after_client_disconnect: %v %v", d, ok)
	}
	block := &structs.TaskGroup{MaxClientDisconnect: &two, Disconnect: &structs.DisconnectStrategy{LostAfter: time.Minute, Replace: &no}}
	if d, _ := block.DisconnectTimeout(); d != time.Minute || block.ReplaceDisconnected() {
		t.Fatalf("the disconnect block must win: %v replace=%v", d, block.ReplaceDisconnected())
	}
	if _, ok := (&structs.TaskGroup{}).DisconnectTimeout(); ok {
		t.Fatal("a group without either setting tolerates no disconnect")
	}
}

// When the replacement of a disconnected node's alloc finds no room, the
// eval writes a blocked eval beside its max-disconnect-timeout follow-up:
// unlike a delayed reschedule, that follow-up will not retry the
// placement.
func TestDisconnect_UnplaceableReplacementBlocks(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 1)
	job := mockJob("web", 1)
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 10 * time.Minute}
	job = h.upsertJob(job)
	h.seedAllocs(job, ns, 0)
	h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusDisconnected, t0.Unix(), nil))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	var timeouts, blocked int
	for _, e := range h.created {
		switch {
		case e.TriggeredBy == structs.EvalTriggerMaxDisconnectTimeout:
			timeouts++
		case e.Status == structs.EvalStatusBlocked:
			blocked++
		}
	}
	if timeouts != 1 || blocked != 1 {
		t.Fatalf("%d max-disconnect-timeout and %d blocked evals, want 1 and 1 (created %d)", timeouts, blocked, len(h.created))
	}
	if h.lastEval().BlockedEval == "" {
		t.Fatal("the node-update eval does not point at its blocked eval")
	}
}

// disconnectedPair stores a count-2 job tolerating disconnects for 10
// minutes (keeping the originals on reconnect) with both allocs on node 0 of two, disconnects node 0 at t0 and
// processes the node-update eval, with its first plan rejected so the
// retry must reuse the follow-up eval of the first attempt.
func disconnectedPair(t *testing.T) (*harness, *structs.Job, []*structs.Node, []*structs.Allocation) {
	t.Helper()
	h := newHarness(t)
	ns := nodes(h, 2)
	job := mockJob("web", 2)
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 10 * time.Minute, Reconcile: structs.ReconcileOptionKeepOriginal}
	job = h.upsertJob(job)
	orig := h.seedAllocs(job, ns[:1], 0, 1)
	h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusDisconnected, t0.Unix(), nil))
	h.rejectPlans = 1
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	return h, job, ns, orig
}

func timeoutEvals(h *harness) int {
	n := 0
	for _, e := range h.created {
		if e.TriggeredBy == structs.EvalTriggerMaxDisconnectTimeout {
			n++
		}
	}
	return n
}

// TestDisconnect_MarksUnknownAndReplacesOnce checks the first eval after
// a disconnect (one timeout eval for the node's allocs, across plan
// attempts; both replaced) and that a later eval leaves it all alone.
func TestDisconnect_MarksUnknownAndReplacesOnce(t *testing.T) {
	h, job, ns, orig := disconnectedPair(t)
	if n := timeoutEvals(h); n != 1 {
		t.Fatalf("%d max-disconnect-timeout evals, want 1", n)
	}
	p := h.lastPlan()
	if du := p.Annotations.DesiredTGUpdates["web"]; du.Place != 2 || du.Ignore != 2 || du.Stop != 0 {
		t.Fatalf("annotations %+v", du)
	}
	for _, a := range orig {
		stored, _ := h.store.AllocByID(nil, a.ID)
		if stored.ClientStatus != structs.AllocClientStatusUnknown || stored.FollowupEvalID != h.created[0].ID {
			t.Fatalf("original %s: %s, follow-up %q", a.Name, stored.ClientStatus, stored.FollowupEvalID)
		}
	}
	if live := h.liveAllocs(job); len(live) != 4 {
		t.Fatalf("%d live allocs, want 2 unknown and 2 replacements", len(live))
	}
	for _, a := range h.liveAllocs(job) {
		if a.NodeID == ns[0].ID && a.PreviousAllocation != "" {
			t.Fatalf("replacement %s placed on the disconnected node", a.Name)
		}
	}
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if n := timeoutEvals(h); n != 1 || len(h.plans) != plans {
		t.Fatalf("a second eval wrote %d timeout evals and %d plans", n-1, len(h.plans)-plans)
	}
}

// TestDisconnect_NextStateOfTheNode checks what an eval does with the
// replaced originals once node 0 changed again: reconnected, one of each
// pair is stopped; down, or disconnected past lost_after, the originals
// are stopped as lost; still disconnected within lost_after, nothing.
func TestDisconnect_NextStateOfTheNode(t *testing.T) {
	cases := []struct {
		name      string
		status    string
		after     time.Duration
		trigger   string
		wantStops int
		wantLost  bool
	}{
		{"reconnected", structs.NodeStatusReady, time.Minute, structs.EvalTriggerReconnect, 2, false},
		{"down", structs.NodeStatusDown, time.Minute, structs.EvalTriggerNodeUpdate, 2, true},
		{"still disconnected", structs.NodeStatusDisconnected, 5 * time.Minute, structs.EvalTriggerNodeUpdate, 0, false},
		{"disconnected past lost_after", structs.NodeStatusDisconnected, 11 * time.Minute, structs.EvalTriggerMaxDisconnectTimeout, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, job, ns, orig := disconnectedPair(t)
			if tc.status != structs.NodeStatusDisconnected {
				h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, tc.status, t0.Add(tc.after).Unix(), nil))
			}
			h.now = t0.Add(tc.after)
			plans := len(h.plans)
			h.process(mockEval(job, tc.trigger))
			var stopped []*structs.Allocation
			var du *structs.DesiredUpdates
			if len(h.plans) > plans {
				p := h.lastPlan()
				_, stopped = planned(p)
				du = p.Annotations.DesiredTGUpdates["web"]
			}
			if len(stopped) != tc.wantStops || (tc.wantStops > 0 && int(du.Stop) != tc.wantStops) {
				t.Fatalf("stopped %d (annotated %+v), want %d", len(stopped), du, tc.wantStops)
			}
			for _, a := range stopped {
				isOrig := a.ID == orig[0].ID || a.ID == orig[1].ID
				if tc.status == structs.NodeStatusReady && (isOrig || a.DesiredDescription != allocReconnectedKeptOriginal) {
					t.Fatalf("reconnected: stopped %s (original %v): %q", a.Name, isOrig, a.DesiredDescription)
				}
				if tc.wantLost && (!isOrig || a.ClientStatus != structs.AllocClientStatusLost || a.DesiredDescription != allocLost) {
					t.Fatalf("stopped %s (original %v) as %s: %q", a.Name, isOrig, a.ClientStatus, a.DesiredDescription)
				}
			}
			if want := 4 - tc.wantStops; len(h.liveAllocs(job)) != want {
				t.Fatalf("%d live allocs, want %d", len(h.liveAllocs(job)), want)
			}
		})
	}
}

// TestDisconnect_NoReplaceMarksOnce checks a group with replace = false:
// its alloc is marked unknown once, with one timeout eval, and a later
// eval does not mark it again while that eval is pending.
func TestDisconnect_NoReplaceMarksOnce(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job := mockJob("web", 1)
	job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 10 * time.Minute, Replace: ptr(false)}
	job = h.upsertJob(job)
	orig := h.seedAllocs(job, ns[:1], 0)[0]
	h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusDisconnected, t0.Unix(), nil))
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	stored, _ := h.store.AllocByID(nil, orig.ID)
	if stored.ClientStatus != structs.AllocClientStatusUnknown || timeoutEvals(h) != 1 || len(h.liveAllocs(job)) != 1 {
		t.Fatalf("first eval: %s, %d timeout evals, %d live", stored.ClientStatus, timeoutEvals(h), len(h.liveAllocs(job)))
	}
	plans := len(h.plans)
	h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
	if timeoutEvals(h) != 1 || len(h.plans) != plans {
		t.Fatalf("second eval: %d timeout evals, %d more plans", timeoutEvals(h), len(h.plans)-plans)
	}
}
