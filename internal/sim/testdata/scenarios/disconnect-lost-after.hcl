description = <<EOT
docs/design.md, max-disconnect-timeout: a node running 2 allocs of a job
whose group has disconnect { lost_after = "2m" } misses its heartbeats.
The node goes disconnected (not down): one node-update eval marks its
allocs unknown, places their replacements elsewhere and writes one
delayed max-disconnect-timeout eval; when lost_after passes that eval
marks the originals lost. Then the node is marked down, which writes
nothing more (no live alloc is left on it).
EOT
seed = 6

node "a" {}
# Joins after the allocs are placed on a, so the replacements go there.
node "b" {
  deferred = true
}

job "web" {
  count = 2
  disconnect {
    lost_after = "2m"
  }
}

at "10s" {
  add_nodes = ["b"]
  expect {
    allocs {
      node   = "a"
      client = "running"
      count  = 2
    }
  }
}

at "11s" {
  miss_heartbeats = ["a"]
}

at "1m" {
  expect {
    since = "11s"
    total = 2
    evals {
      trigger = "node-update"
      status  = "complete"
      count   = 1
    }
    evals {
      trigger  = "max-disconnect-timeout"
      status   = "pending"
      delayed  = true
      previous = "node-update"
      count    = 1
    }
    allocs {
      node   = "a"
      client = "unknown"
      count  = 2
    }
    allocs {
      node   = "b"
      client = "running"
      count  = 2
    }
  }
}

at "4m" {}

expect {
  since = "11s"
  total = 2
  evals {
    trigger = "node-update"
    status  = "complete"
    count   = 1
  }
  evals {
    trigger  = "max-disconnect-timeout"
    status   = "complete"
    previous = "node-update"
    count    = 1
  }
  allocs {
    node    = "a"
    desired = "stop"
    client  = "lost"
    count   = 2
  }
  allocs {
    node   = "b"
    client = "running"
    count  = 2
  }
}
