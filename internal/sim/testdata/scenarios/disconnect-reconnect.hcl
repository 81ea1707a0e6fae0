description = <<EOT
docs/design.md, reconnect: a node running 2 allocs of a job whose group
has disconnect { lost_after = "2m", reconcile = "${var.reconcile}" } misses
its heartbeats and comes back before lost_after. Disconnecting writes one
node-update eval (allocs unknown, replaced on b, one delayed
max-disconnect-timeout eval); heartbeating again writes one reconnect
eval, which keeps the allocs on ${var.kept} and stops those on
${var.replaced}. The max-disconnect-timeout eval later finds nothing to do
and is canceled.
EOT
seed = 7

variant "keep_original" {
  reconcile = "keep_original"
  kept      = "a"
  replaced  = "b"
}
variant "keep_replacement" {
  reconcile = "keep_replacement"
  kept      = "b"
  replaced  = "a"
}
variant "longest_running" {
  reconcile = "longest_running"
  kept      = "a"
  replaced  = "b"
}

node "a" {}
node "b" {
  deferred = true
}

job "web" {
  count = 2
  disconnect {
    lost_after = "2m"
    reconcile  = var.reconcile
  }
}

at "10s" {
  add_nodes = ["b"]
}
at "11s" {
  miss_heartbeats = ["a"]
}
at "1m" {
  resume = ["a"]
}
at "4m" {}

expect {
  since = "11s"
  total = 3
  evals {
    trigger = "node-update"
    status  = "complete"
    count   = 1
  }
  evals {
    trigger = "reconnect"
    status  = "complete"
    count   = 1
  }
  evals {
    trigger  = "max-disconnect-timeout"
    status   = "canceled"
    previous = "node-update"
    count    = 1
  }
  allocs {
    node    = var.kept
    desired = "run"
    client  = "running"
    count   = 2
  }
  allocs {
    node    = var.replaced
    desired = "stop"
    client  = "complete"
    count   = 2
  }
}
