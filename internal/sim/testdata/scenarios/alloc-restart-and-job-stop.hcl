description = <<EOT
An alloc restarted in place (`nomad alloc restart`) is the client's
business: its tasks count one restart more, it keeps running on its node,
and the server writes no eval. Restarted twice, the same alloc counts 2.
Then both jobs are stopped (`nomad job stop`, no purge): one
job-deregister eval each (big's a no-op, canceled), web's allocs stopped
(the restarted one still counting 2), and big's blocked eval
(it never fitted) canceled at once rather than left blocked until some
capacity change wakes it.
EOT
seed = 11

node "n" {
  count = 2
}

job "web" {
  count = 2
}
job "big" {
  cpu = 100000
}

at "10s" {
  restart_alloc = ["web"]
  expect {
    since = "10s"
    total = 0
    allocs {
      job      = "web"
      restarts = 1
      count    = 1
    }
    allocs {
      job   = "web"
      count = 2
    }
  }
}

at "20s" {
  restart_alloc = ["web"]
  expect {
    since = "20s"
    total = 0
    allocs {
      job      = "web"
      restarts = 2
      count    = 1
    }
  }
}

at "30s" {
  stop = ["web", "big"]
  expect {
    evals {
      trigger  = "queued-allocs"
      status   = "canceled"
      previous = "job-register"
      link     = "blocked"
      count    = 1
    }
  }
}

expect {
  since = "30s"
  total = 2
  evals {
    trigger = "job-deregister"
    status  = "complete"
    job     = "web"
    count   = 1
  }
  evals {
    trigger = "job-deregister"
    status  = "canceled"
    job     = "big"
    count   = 1
  }
  allocs {
    job      = "web"
    desired  = "stop"
    client   = "complete"
    restarts = 2
    count    = 1
  }
  allocs {
    job      = "web"
    desired  = "stop"
    client   = "complete"
    restarts = 0
    count    = 1
  }
}
