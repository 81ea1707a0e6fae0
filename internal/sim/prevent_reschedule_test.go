package sim

import "testing"

// TestPlay_PreventRescheduleOnLostKeepsAllocsUnknown: a group with
// prevent_reschedule_on_lost whose node misses its heartbeats and goes
// down gets no replacement on the other node: its allocs stay unknown
// (desired run) until the node is back and its client reports them
// running again. Nothing is blocked, nothing is placed on "b".
func TestPlay_PreventRescheduleOnLostKeepsAllocsUnknown(t *testing.T) {
	playPassing(t, `
seed = 11
node "a" {}
node "b" {
  deferred = true
}
job "web" {
  count                      = 2
  prevent_reschedule_on_lost = true
}
at "10s" {
  add_nodes = ["b"]
}
at "11s" {
  down = ["a"]
  expect {
    allocs {
      node    = "a"
      desired = "run"
      client  = "unknown"
      count   = 2
    }
    allocs {
      node  = "b"
      count = 0
    }
  }
}
at "2m" {
  resume = ["a"]
}
at "3m" {}
expect {
  since = "11s"
  evals {
    trigger = "queued-allocs"
    count   = 0
  }
  allocs {
    node    = "a"
    desired = "run"
    client  = "running"
    count   = 2
  }
  allocs {
    node  = "b"
    count = 0
  }
}
`)
}
