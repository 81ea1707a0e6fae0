# The same web job with provider = "nomad": accepted, every field honoured.
# expect: accept
job "web-native" {
  datacenters = ["dc1"]
  group "web" {
    count = 2
    network {
      mode = "host"
      port "http" {}
    }
    service {
      provider = "nomad"
      name     = "web-native"
      port     = "http"
      tags     = ["public"]
      check {
        type     = "http"
        path     = "/health"
        method   = "GET"
        interval = "10s"
        timeout  = "2s"
        check_restart {
          limit = 3
          grace = "30s"
        }
      }
    }
    task "server" {
      driver = "docker"
      config {
        image = "nginx:1.25"
        ports = ["http"]
      }
      env {
        MODE = "prod"
      }
      resources {
        cpu    = 200
        memory = 128
      }
    }
  }
}
