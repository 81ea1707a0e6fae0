# A web job as Nomad's docs write it: the service has no provider, so
# Nomad registers it in Consul. Drover has no Consul: refused, naming the fix.
# expect: refuse Services[0].Provider
job "web" {
  datacenters = ["dc1"]
  group "web" {
    count = 2
    network {
      port "http" {}
    }
    service {
      name = "web"
      port = "http"
      tags = ["urlprefix-/"]
      check {
        type     = "http"
        path     = "/health"
        interval = "10s"
        timeout  = "2s"
      }
    }
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec python3 -m http.server ${NOMAD_PORT_http}"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
