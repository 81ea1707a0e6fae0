description = <<EOT
docs/design.md, third example: 2 nodes each running allocs of 5
system jobs go down once (missed heartbeats) and come back: 5 node-update
evals per node per transition, 20 in all.
EOT
seed = 3

node "a" {}
node "b" {}

job "sys" {
  type     = "system"
  replicas = 5
}

at "10s" {
  miss_heartbeats = ["a"]
}
at "50s" {
  resume = ["a"]
}
at "60s" {
  miss_heartbeats = ["b"]
}
at "110s" {
  resume = ["b"]
}

expect {
  since = "10s"
  total = 20
  evals {
    trigger = "node-update"
    status  = "complete"
    count   = 20
  }
  allocs {
    client = "running"
    count  = 10
  }
}
