description = <<EOT
docs/design.md, second example: a service job of count 3 updated
with max_parallel = 1 and canary = 1 (auto-promoted). The nodes report each
new alloc healthy; the deployment watcher emits one eval per step:
1 job-register + 3 deployment-watcher evals, none pointing back.
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
    count    = 3
  }
  allocs {
    job   = "web"
    count = 3
  }
}
