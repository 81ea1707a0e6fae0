# Bridge networking with a mapped port: Drover runs allocations in the host
# namespace, so the mode is refused rather than run without the mapping.
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
