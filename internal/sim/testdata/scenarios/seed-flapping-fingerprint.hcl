description = <<EOT
docs/design.md, the flapping example, fingerprint variant: 2 nodes
each running allocs of 5 system jobs change their fingerprint once each.
Each change writes 5 node-update evals (one per system job covering the
node), and every one is a no-op that the scheduler cancels: "all of
these will be no-op Evaluations that will ... be canceled by the
scheduler".
EOT
seed = 4

node "a" {}
node "b" {}

job "sys" {
  type     = "system"
  replicas = 5
}

at "10s" {
  fingerprint = ["a"]
}
at "60s" {
  fingerprint = ["b"]
}

expect {
  since = "10s"
  total = 10
  evals {
    trigger = "node-update"
    status  = "canceled"
    count   = 10
  }
  allocs {
    client = "running"
    count  = 10
  }
}
