package sim

import (
	"testing"
	"time"
)

// TestAdvanceTime_RunsToIdleWhenATimerFires checks that AdvanceTime runs
// the cluster to idle at each instant a server timer fires, not only at
// the end: when a silent node's heartbeat timer expires, its alloc's
// replacement is placed and started on the other node at that instant.
func TestAdvanceTime_RunsToIdleWhenATimerFires(t *testing.T) {
	s := newTestSim(t, 3)
	for _, n := range []string{"a", "b"} {
		_, err := s.AddNode(NodeSpec{Name: n})
		must(t, err)
	}
	// api runs on a: b is ineligible while it is placed.
	must(t, s.SetEligibility("b", false))
	must(t, s.RegisterJob(JobSpec{Name: "api"}))
	must(t, s.SetEligibility("b", true))
	must(t, s.MissHeartbeats("a"))
	must(t, s.AdvanceTime(5*time.Minute))

	h, err := s.History()
	must(t, err)
	var expired time.Duration
	for _, e := range h.Evals {
		if e.Trigger == "node-update" && e.Node == "a" {
			expired = e.Created
		}
	}
	if expired == 0 || expired >= 5*time.Minute {
		t.Fatalf("node a did not expire within the 5 minutes:\n%s", h)
	}
	allocs, err := s.srv.State().Allocs(nil, "*")
	must(t, err)
	started := 0
	for _, a := range allocs {
		if a.JobID != "api" || a.NodeID != s.nodes["b"].ID || a.ClientStatus != "running" {
			continue
		}
		for _, ts := range a.TaskStates {
			if got := ts.StartedAt.Sub(Epoch); got != expired {
				t.Errorf("replacement of api started at %v, want %v when node a expired", got, expired)
			}
			started++
		}
	}
	if started == 0 {
		t.Fatalf("no replacement of api running on b:\n%s", h)
	}
}
