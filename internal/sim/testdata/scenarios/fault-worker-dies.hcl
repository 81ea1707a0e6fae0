description = <<EOT
A worker dies mid-eval: the scheduler run errors, the worker nacks, and the
broker redelivers the eval after its nack delay (1s). The job still lands,
through the same single job-register eval.
EOT
seed = 4

node "n" {
  count = 3
}

job "web" {
  count    = 2
  deferred = true
}

at "5s" {
  worker_dies = 1
  register    = ["web"]
  expect {
    since = "5s"
    evals {
      trigger = "job-register"
      status  = "pending"
      count   = 1
    }
  }
}

at "7s" {
  expect {
    since = "5s"
    total = 1
    evals {
      trigger = "job-register"
      status  = "complete"
      count   = 1
    }
    allocs {
      job   = "web"
      count = 2
    }
  }
}
