description = <<EOT
Scale a job up, fail one of its allocs, and drain a node: a job-scaling
eval, an alloc-failure eval (with its delayed reschedule follow-up), and a
node-drain eval; at the end no alloc runs on the drained node.
EOT
seed = 6

node "n" {
  count = 4
}

job "web" {
  count          = 2
  distinct_hosts = true
}

at "5s" {
  scale = { web = 3 }
}

at "10s" {
  fail_alloc = ["web"]
}

at "20s" {
  drain = ["n-2"]
}

at "5m" {
  expect {
    since = "5s"
    evals {
      trigger = "job-scaling"
      status  = "complete"
      count   = 1
    }
    # The failure's eval and its delayed reschedule follow-up; the
    # node-drain eval that passes by meanwhile leaves the failed alloc to
    # its pending follow-up instead of writing another.
    evals {
      trigger = "alloc-failure"
      count   = 2
    }
    evals {
      trigger = "node-drain"
      status  = "complete"
      count   = 1
    }
    allocs {
      job   = "web"
      node  = "n-2"
      count = 0
    }
    allocs {
      job   = "web"
      count = 3
    }
  }
}
