description = <<EOT
A leader change while a node is down and a job is blocked: the new leader
rebuilds the broker and blocked tracker from state, loses no eval, and the
blocked eval is placed when the node returns.
EOT
seed = 5

node "n1" {
  meta = { rack = "r1" }
}
node "n2" {}

job "pinned" {
  constraint {
    attribute = "meta.rack"
    value     = "r1"
  }
}

at "5s" {
  miss_heartbeats = ["n1"]
}

at "40s" {
  leader_change = true
  expect {
    since = "5s"
    evals {
      trigger = "queued-allocs"
      status  = "blocked"
      count   = 1
    }
  }
}

at "50s" {
  resume = ["n1"]
}

expect {
  since = "5s"
  evals {
    trigger = "queued-allocs"
    status  = "complete"
    count   = 1
  }
  allocs {
    job   = "pinned"
    node  = "n1"
    count = 1
  }
}
