description = <<EOT
docs/design.md, preemption: a high-priority system job needs room on a
full node; the plan applier evicts the low-priority service alloc and
writes 1 preemption eval for its job. The chain is broken on purpose: the
preemption eval has no PreviousEval and the preempting eval points at
nothing (no NextEval, no BlockedEval).
EOT
seed = 13

node "n" {
  cpu    = 1000
  memory = 2048
}

job "low" {
  cpu      = 800
  priority = 30
}
job "agent" {
  type     = "system"
  cpu      = 500
  priority = 90
  deferred = true
}

at "10s" {
  register = ["agent"]
}

expect {
  since = "10s"
  evals {
    trigger = "job-register"
    job     = "agent"
    status  = "complete"
    next    = "none"
    blocked = "none"
    count   = 1
  }
  evals {
    trigger  = "preemption"
    job      = "low"
    previous = "none"
    count    = 1
  }
  allocs {
    job   = "agent"
    count = 1
  }
}
