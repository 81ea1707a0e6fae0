# A system job on every Linux node.
# expect: accept
job "node-exporter" {
  type     = "system"
  priority = 80
  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }
  group "g" {
    update {
      max_parallel = 1
      stagger      = "10s"
    }
    task "exporter" {
      driver = "exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      kill_timeout = "10s"
      kill_signal  = "SIGINT"
    }
  }
}
