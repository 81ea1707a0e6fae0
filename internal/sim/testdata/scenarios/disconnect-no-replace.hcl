description = <<EOT
docs/design.md, max-disconnect-timeout with disconnect { replace = false }
(and the older max_client_disconnect on a second job): while node a is
disconnected its allocs are unknown and NOT replaced for the first job;
the second job's are replaced. When lost_after passes, each job's one
max-disconnect-timeout eval marks its originals lost, and only then is
the first job's alloc replaced.
EOT
seed = 8

node "a" {}
node "b" {
  deferred = true
}

job "keep" {
  disconnect {
    lost_after = "2m"
    replace    = false
  }
}
job "legacy" {
  max_client_disconnect = "2m"
}

at "10s" {
  add_nodes = ["b"]
}
at "11s" {
  miss_heartbeats = ["a"]
}
at "1m" {
  expect {
    allocs {
      job    = "keep"
      node   = "a"
      client = "unknown"
      count  = 1
    }
    allocs {
      job   = "keep"
      node  = "b"
      count = 0
    }
    allocs {
      job    = "legacy"
      node   = "b"
      client = "running"
      count  = 1
    }
  }
}
at "4m" {}

expect {
  since = "11s"
  total = 4
  evals {
    trigger = "node-update"
    status  = "complete"
    count   = 2
  }
  evals {
    trigger  = "max-disconnect-timeout"
    status   = "complete"
    previous = "node-update"
    count    = 2
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
