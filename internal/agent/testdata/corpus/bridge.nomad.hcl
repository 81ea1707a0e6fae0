# Bridge networking with a mapped port for a docker task: Drover gives the
# alloc its own namespace, but docker tasks cannot join it yet, so the
# server refuses the group rather than run it on docker's network.
# expect: refuse Networks[0].Mode
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
