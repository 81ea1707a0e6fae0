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

// TestPlay_DownAndFill checks two node operations: fill uses up what is
// left of a node, so a job registered after it finds no room there; down
// marks a node down at once (one node-update eval, its allocs lost), and
// their replacements find no room either, so the job is blocked.
func TestPlay_DownAndFill(t *testing.T) {
	playPassing(t, `
seed = 5
node "a" {}
node "b" {}
job "small" {
  count = 1
  cpu   = 1000
  constraint {
    attribute = "node.unique.name"
    value     = "b"
  }
}
job "web" {
  count    = 2
  cpu      = 500
  deferred = true
}
at "5s" {
  fill = ["b"]
  expect {
    allocs {
      job     = "fill-b"
      node    = "b"
      desired = "run"
      client  = "running"
      count   = 1
    }
  }
}
at "10s" {
  register = ["web"]
  expect {
    allocs {
      job     = "web"
      node    = "a"
      desired = "run"
      count   = 2
    }
  }
}
at "20s" {
  down = ["a"]
}
expect {
  since = "20s"
  total = 2
  evals {
    trigger = "node-update"
    job     = "web"
    status  = "complete"
    blocked = "set"
    count   = 1
  }
  evals {
    trigger = "queued-allocs"
    job     = "web"
    status  = "blocked"
    count   = 1
  }
  allocs {
    job     = "web"
    desired = "run"
    count   = 0
  }
  allocs {
    job     = "web"
    desired = "stop"
    client  = "lost"
    count   = 2
  }
}
`)
}

// TestPlay_FillAFullNodeAddsNothing checks that filling a node with no CPU
// or no memory left registers no filler job: there is nothing to take.
func TestPlay_FillAFullNodeAddsNothing(t *testing.T) {
	for _, hog := range []string{"cpu = 4000", "memory = 8192"} {
		t.Run(hog, func(t *testing.T) {
			res := playHCL(t, `
seed = 5
node "a" {}
job "hog" {
  `+hog+`
}
at "5s" {
  fill = ["a"]
}
expect {
  since = "5s"
  total = 0
}
`)
			if !res.Passed() {
				t.Fatalf("failures %q\n%s", res.Failures, res.Transcript())
			}
		})
	}
}
