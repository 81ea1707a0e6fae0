# A cache that should survive rescheduling: not supported yet.
# expect: refuse EphemeralDisk.Sticky
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
