# A cache that should survive rescheduling: sticky keeps the replacement
# on the node with the data when it fits; migrate copies the data to a
# replacement on another node.
# expect: accept
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
