package sim

import (
	"testing"
)

// TestPlay_ReconnectedAllocKeepsItsStartTime checks that a reconnected
// client reports its allocs as they were, started when they first
// started. With reconcile = "longest_running" and the reconnect eval's
// first run killed (so it is redelivered after the client has reported
// again), the scheduler compares the originals' start, before the
// disconnect, with the replacements', after it: the originals are kept.
// A client that reported them as just started would lose them.
func TestPlay_ReconnectedAllocKeepsItsStartTime(t *testing.T) {
	playPassing(t, `
seed = 7
node "a" {}
node "b" {
  deferred = true
}
job "web" {
  count = 2
  disconnect {
    lost_after = "5m"
    reconcile  = "longest_running"
  }
}
at "10s" {
  add_nodes = ["b"]
}
at "11s" {
  miss_heartbeats = ["a"]
}
at "1m" {
  worker_dies = 1
  resume      = ["a"]
}
at "3m" {}
expect {
  since = "1m"
  evals {
    trigger = "reconnect"
    status  = "complete"
    count   = 1
  }
  allocs {
    node    = "a"
    desired = "run"
    client  = "running"
    count   = 2
  }
  allocs {
    node    = "b"
    desired = "stop"
    client  = "complete"
    count   = 2
  }
}
`)
}

// TestPlay_AllocPlacedOnASilentNodeStartsWhenItReconnects checks the
// client's report for an alloc that was placed on a node already cut off
// (so it never started before the node disconnected): when the node comes
// back, the client starts it and reports its tasks running since then.
// The scheduler sees that start at the node's next disconnect: with
// reconcile = "longest_running" the alloc, started before its second
// replacement, is kept. An alloc reported running with no task ever
// started would count as started last and lose to its replacement.
func TestPlay_AllocPlacedOnASilentNodeStartsWhenItReconnects(t *testing.T) {
	playPassing(t, `
seed = 7
node "a" {}
node "b" {
  deferred = true
}
job "web" {
  deferred = true
  disconnect {
    lost_after = "5m"
    reconcile  = "longest_running"
  }
}
at "1s" {
  miss_heartbeats = ["a"]
}
at "2s" {
  register = ["web"]
}
at "1m" {
  resume = ["a"]
}
at "1m10s" {
  add_nodes = ["b"]
}
at "1m20s" {
  miss_heartbeats = ["a"]
}
at "3m" {
  resume = ["a"]
}
at "4m" {}
expect {
  allocs {
    node    = "a"
    desired = "run"
    client  = "running"
    count   = 1
  }
  allocs {
    node    = "b"
    desired = "stop"
    client  = "complete"
    count   = 1
  }
}
`)
}

// TestSim_AllocOperationsPickTheFirstAllocByName checks which alloc
// restart_alloc and fail_alloc act on when a job has several on one node:
// the first by alloc name (stop_alloc picks the same way).
func TestSim_AllocOperationsPickTheFirstAllocByName(t *testing.T) {
	s := newTestSim(t, 11)
	_, err := s.AddNode(NodeSpec{Name: "a"})
	must(t, err)
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 3}))
	must(t, s.RestartAlloc("web"))
	must(t, s.FailAlloc("web"))
	h, err := s.History()
	must(t, err)
	var restarted, failed []string
	for _, a := range h.Allocs {
		if a.Restarts > 0 {
			restarted = append(restarted, a.Name)
		}
		if a.Client == "failed" {
			failed = append(failed, a.Name)
		}
	}
	if len(restarted) != 1 || restarted[0] != "web.g[0]" || len(failed) != 1 || failed[0] != "web.g[0]" {
		t.Fatalf("restarted %v, failed %v; want web.g[0] each time\n%s", restarted, failed, h)
	}
}
