# An init task, a log-shipping sidecar and a cleanup task.
# expect: accept
job "lifecycle" {
  group "g" {
    task "init" {
      lifecycle {
        hook = "prestart"
      }
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
    task "shipper" {
      lifecycle {
        hook    = "poststart"
        sidecar = true
      }
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
    task "main" {
      leader = true
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
    task "cleanup" {
      lifecycle {
        hook = "poststop"
      }
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}
