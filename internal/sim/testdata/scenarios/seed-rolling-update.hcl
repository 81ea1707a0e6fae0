description = <<EOT
docs/design.md, second example: a service job of count 3 updated
with max_parallel = 1 and canary = 1 (auto-promoted). The nodes report each
new alloc healthy; the deployment watcher emits one eval per step:
1 job-register + 3 deployment-watcher evals, none pointing back. The last
step finds the rollout done: a no-op, which the scheduler cancels.
EOT
seed = 2

node "n" {
  count = 4
}

job "web" {
  count = 3
  cpu   = 500
  update {
    max_parallel = 1
    canary       = 1
    auto_promote = true
  }
}

at "10s" {
  update = ["web"]
}

expect {
  since = "10s"
  total = 4
  evals {
    trigger = "job-register"
    status  = "complete"
    count   = 1
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "complete"
    previous = "none"
    count    = 2
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "canceled"
    previous = "none"
    count    = 1
  }
  allocs {
    job   = "web"
    count = 3
  }
}
