# A one-off job on every node.
# expect: accept
job "cleanup" {
  type = "sysbatch"
  group "g" {
    restart {
      attempts = 1
      mode     = "fail"
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
