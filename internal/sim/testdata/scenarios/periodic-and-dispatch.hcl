description = <<EOT
docs/design.md, periodic-job: a periodic batch job (every 5 minutes)
launches a child on its timer with 1 periodic-job eval per launch, and
once more when forced; a parameterized job writes no eval when
registered and 1 job-register eval per dispatched child. The leader's
scheduled GC evals (eval-gc and job-gc every 5 minutes) run too.
EOT
seed = 12

node "n" {
  count = 2
}

job "report" {
  type = "batch"
  cron = "*/5 * * * *"
}
job "work" {
  type          = "batch"
  parameterized = true
}

at "1m" {
  force_periodic = ["report"]
  dispatch       = ["work"]
}
at "2m" {
  dispatch = ["work"]
}
at "11m" {}

expect {
  total = 9
  evals {
    trigger = "scheduled"
    status  = "complete"
    count   = 4
  }
  evals {
    trigger = "periodic-job"
    status  = "complete"
    count   = 3
  }
  evals {
    trigger = "job-register"
    status  = "complete"
    count   = 2
  }
}
