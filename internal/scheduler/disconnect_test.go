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
