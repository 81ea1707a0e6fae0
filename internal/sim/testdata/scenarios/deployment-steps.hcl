description = <<EOT
docs/design.md (Triggers), deployment-watcher: "It will create 1 Evaluation
when the Deployment has reached the next step". A count-4 group updated
with max_parallel = 2 and no canary rolls out in two steps: 1 job-register
+ 2 deployment-watcher evals, however the healthy reports are spread
(${var.nodes} nodes, each reporting its own allocs' health separately).
The last step finds the rollout done: a no-op, canceled.
EOT
seed = 5

variant "2-nodes" {
  nodes = 2
}
variant "4-nodes" {
  nodes = 4
}

node "n" {
  count = var.nodes
}

job "web" {
  count = 4
  cpu   = 200
  update {
    max_parallel = 2
  }
}

at "10s" {
  update = ["web"]
}

expect {
  since = "10s"
  total = 3
  evals {
    trigger = "job-register"
    status  = "complete"
    count   = 1
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "complete"
    previous = "none"
    count    = 1
  }
  evals {
    trigger  = "deployment-watcher"
    status   = "canceled"
    previous = "none"
    count    = 1
  }
  allocs {
    job   = "web"
    count = 4
  }
}
