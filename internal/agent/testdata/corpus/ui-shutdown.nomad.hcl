# A job with a ui block (warned: it only decorates Nomad's UI) and a group
# shutdown delay (honoured).
# expect: warn UI
job "decorated" {
  ui {
    description = "The web tier"
    link {
      label = "Runbook"
      url   = "https://example.com/runbook"
    }
  }
  group "g" {
    shutdown_delay = "5s"
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
