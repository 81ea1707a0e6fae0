# Bridge networking with a mapped port for a docker task: the alloc gets
# its own namespace (held by a pause container), which the task joins; the
# port is mapped by CNI's portmap to the port's to.
# expect: accept
job "bridge" {
  group "api" {
    network {
      mode = "bridge"
      port "http" { to = 8080 }
    }
    task "api" {
      driver = "docker"
      config {
        image = "hashicorp/http-echo"
        args  = ["-listen", ":8080", "-text", "hi"]
      }
    }
  }
}
