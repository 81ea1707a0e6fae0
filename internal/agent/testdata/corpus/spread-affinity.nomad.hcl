# Spread over racks, prefer big nodes, keep away from one rack.
# expect: accept
job "spread" {
  spread {
    attribute = "${meta.rack}"
    weight    = 100
    target "r1" { percent = 50 }
    target "r2" { percent = 50 }
  }
  group "g" {
    count = 4
    affinity {
      attribute = "${node.class}"
      value     = "big"
      weight    = 50
    }
    affinity {
      attribute = "${meta.rack}"
      value     = "r3"
      weight    = -50
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
