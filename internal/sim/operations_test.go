package sim

import (
	"testing"
	"time"
)

// requireIdle fails the test unless the cluster is idle: a pass over
// every leader duty and the worker finds nothing to do, and no live node
// has anything to report about its allocs.
func requireIdle(t *testing.T, s *Sim, after string) {
	t.Helper()
	if s.srv.StepDuties() {
		t.Fatalf("after %s: a duty pass still found work", after)
	}
	for _, n := range s.sortedNodes() {
		if n.isSilent() {
			continue
		}
		allocs, err := s.srv.State().AllocsByNode(nil, n.ID)
		must(t, err)
		for _, a := range allocs {
			if u := s.clientUpdate(a); u != nil {
				t.Fatalf("after %s: node %s still has to report alloc %s as %s", after, n.Name, a.Name, u.ClientStatus)
			}
		}
	}
}

// TestSim_OperationsRunTheClusterToIdle checks each operation's promise
// that it runs the cluster to idle before it returns: what it caused is
// scheduled, placed and reported, so a scenario step's next operation
// sees the settled cluster. A rolling update on one node needs one node
// report per step of the rollout, each of which schedules the next step
// on that same node.
func TestSim_OperationsRunTheClusterToIdle(t *testing.T) {
	s := newTestSim(t, 5)
	for _, n := range []string{"a", "b"} {
		_, err := s.AddNode(NodeSpec{Name: n})
		must(t, err)
	}
	must(t, s.RegisterJob(JobSpec{Name: "sys", Type: "system"}))
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 2}))
	must(t, s.RegisterJob(JobSpec{Name: "roll", Count: 3, Update: &UpdateSpec{MaxParallel: 1},
		Constraints: []ConstraintSpec{{Attribute: "node.unique.name", Value: "b"}}}))
	requireIdle(t, s, "registering")

	ops := []struct {
		name string
		do   func() error
	}{
		{"a rolling update", func() error { return s.UpdateJob("roll") }},
		{"a failed alloc", func() error { return s.FailAlloc("web") }},
		{"an alloc restart", func() error { return s.RestartAlloc("web") }},
		{"a fingerprint change", func() error { return s.ChangeFingerprint("b", map[string]string{"sim.fingerprint": "1"}) }},
		{"missed heartbeats", func() error {
			must(t, s.MissHeartbeats("a"))
			return s.AdvanceTime(time.Minute)
		}},
		{"a resumed node", func() error { return s.Resume("a") }},
	}
	for _, op := range ops {
		must(t, op.do())
		requireIdle(t, s, op.name)
	}
}
