# A cache that should survive rescheduling: sticky is honoured (the
# replacement stays on the node with the data); migrate to another node is
# not built yet.
# expect: refuse EphemeralDisk.Migrate
job "cache" {
  group "g" {
    ephemeral_disk {
      size    = 500
      sticky  = true
      migrate = true
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
