description = <<EOT
docs/design.md, deployment-watcher with operator actions: "canary" (count
2, canary 1, manual promotion) and "doomed" (count 2, max_parallel 1, its
allocs never report health) are updated. The healthy canary is a step (1
deployment-watcher eval, a no-op while promotion is pending: canceled);
promoting writes 1 eval that rolls out the rest, and the last step 1 more
(no-op, canceled). Failing doomed's deployment writes 1 eval and ends its
rollout: no new deployment, no further replacement (one old and one new
alloc keep running).
EOT
seed = 10

node "n" {
  count = 3
}

job "canary" {
  count = 2
  update {
    max_parallel = 1
    canary       = 1
  }
}
job "doomed" {
  count  = 2
  health = "none"
  update {
    max_parallel = 1
  }
}

at "10s" {
  update = ["canary", "doomed"]
}
at "20s" {
  promote         = ["canary"]
  fail_deployment = ["doomed"]
}

expect {
  since = "10s"
  total = 6
  evals {
    trigger = "job-register"
    status  = "complete"
    count   = 2
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "canceled"
    job      = "canary"
    previous = "none"
    count    = 2
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "complete"
    job      = "canary"
    previous = "none"
    count    = 1
  }
  evals {
    trigger  = "deployment-watcher"
    job      = "doomed"
    previous = "none"
    count    = 1
  }
  allocs {
    job   = "canary"
    count = 2
  }
  allocs {
    job   = "doomed"
    count = 2
  }
  allocs {
    job     = "doomed"
    desired = "stop"
    client  = "complete"
    count   = 1
  }
}
