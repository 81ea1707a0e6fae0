description = <<EOT
A node marked ineligible keeps its service allocs and writes no eval
(nothing has to move). Marked eligible again, it writes one node-update
eval per job with allocs on it (and per system job that covers it), as
Nomad does and as a node becoming ready does: a system job registered
meanwhile would otherwise never reach it. Here web needs nothing from it,
so its eval is a no-op, canceled.
EOT
seed = 11

node "n" {
  count = 2
}

job "web" {
  count = 2
}

at "10s" {
  ineligible = ["n-1"]
}
at "20s" {
  eligible = ["n-1"]
}

expect {
  since = "10s"
  total = 1
  evals {
    trigger = "node-update"
    status  = "canceled"
    job     = "web"
    count   = 1
  }
  allocs {
    job   = "web"
    count = 2
  }
}
