description = <<EOT
docs/design.md triggers an operator causes: alloc-stop (1 eval, the alloc
replaced), a system job updated with update { max_parallel = 1, stagger =
"30s" } on 3 nodes (1 job-register eval, then 2 rolling-update evals, each
old.NextEval = new.ID and new.PreviousEval = old.ID), a drain with a
deadline (1 node-drain eval per job on the node), and a purge (1
job-deregister eval, every alloc of the job stopped).
EOT
seed = 9

node "n" {
  count = 3
}

job "web" {
  count = 2
}
job "agent" {
  type = "system"
  update {
    max_parallel = 1
    stagger      = "30s"
  }
}

at "10s" {
  stop_alloc = ["web"]
  update     = ["agent"]
  expect {
    since = "10s"
    evals {
      trigger = "alloc-stop"
      status  = "complete"
      count   = 1
    }
    allocs {
      job   = "web"
      count = 2
    }
  }
}

at "3m" {
  drain_deadline = { "n-2" = "1m" }
  expect {
    since = "3m"
    evals {
      trigger = "node-drain"
      status  = "complete"
      count   = 2
    }
  }
}

at "4m" {
  purge = ["web"]
}

expect {
  since = "10s"
  evals {
    trigger = "job-register"
    status  = "complete"
    job     = "agent"
    count   = 1
  }
  evals {
    trigger  = "rolling-update"
    status   = "complete"
    previous = "job-register"
    link     = "next"
    count    = 1
  }
  evals {
    trigger  = "rolling-update"
    status   = "complete"
    previous = "rolling-update"
    link     = "next"
    count    = 1
  }
  evals {
    trigger = "job-deregister"
    status  = "complete"
    count   = 1
  }
  allocs {
    job   = "web"
    count = 0
  }
  allocs {
    job   = "agent"
    count = 2
  }
}
