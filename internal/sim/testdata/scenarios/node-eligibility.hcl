description = <<EOT
A node marked ineligible keeps its service allocs and writes no eval
(nothing has to move); marked eligible again, it still writes none for a
job that needs nothing from it.
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
  total = 0
  allocs {
    job   = "web"
    count = 2
  }
}
