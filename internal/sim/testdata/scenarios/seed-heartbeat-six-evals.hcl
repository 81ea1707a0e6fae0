description = <<EOT
docs/design.md, first example: a node running 1 system job and 2
service jobs misses its heartbeat. One service job (pinned to the node's
rack) fits nowhere else; the other's plans are rejected until the attempt
limit. Exactly 6 evals: 3 node-update, 1 blocked queued-allocs, 1
max-plan-attempts, 1 delayed failed-follow-up.
EOT
seed = 1

node "n1" {
  meta = { rack = "r1" }
}
node "peer" {
  count = 3
  meta  = { rack = "r2" }
}
# Joins after the jobs are placed, so the rejected job has somewhere to go.
node "spare" {
  deferred = true
  meta     = { rack = "r2" }
}

job "sys" {
  type = "system"
}
job "pinned" {
  constraint {
    attribute = "meta.rack"
    value     = "r1"
  }
}
job "spread" {
  count          = 4
  distinct_hosts = true
}

at "2s" {
  add_nodes = ["spare"]
}

at "5s" {
  reject_plans    = ["spread"]
  miss_heartbeats = ["n1"]
}

# n1 is marked down within TTL + grace (at most 30s); the follow-up is
# delayed at least a minute past that, so at 45s it is still pending.
at "45s" {
  expect {
    since = "5s"
    total = 6
    evals {
      trigger = "node-update"
      count   = 3
    }
    evals {
      trigger = "node-update"
      status  = "complete"
      count   = 2
    }
    evals {
      trigger         = "queued-allocs"
      status          = "blocked"
      job             = "pinned"
      previous        = "node-update"
      previous_status = "complete"
      link            = "blocked"
      count           = 1
    }
    evals {
      trigger         = "max-plan-attempts"
      status          = "blocked"
      job             = "spread"
      previous        = "node-update"
      previous_status = "failed"
      link            = "blocked"
      count           = 1
    }
    evals {
      trigger         = "failed-follow-up"
      status          = "pending"
      job             = "spread"
      delayed         = true
      previous        = "node-update"
      previous_status = "failed"
      link            = "next"
      count           = 1
    }
  }
}
