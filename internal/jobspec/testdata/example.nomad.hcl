job "example" {
  datacenters = ["dc1"]
  type        = "service"

  update {
    max_parallel = 1
    canary       = 1
  }

  group "web" {
    count = 3

    network {
      port "http" {
        to = 8080
      }
    }

    task "server" {
      driver = "docker"

      config {
        image = "hashicorp/http-echo:1.0"
        ports = ["http"]
        args  = ["-listen", ":8080", "-text", "hello from ${NOMAD_ALLOC_ID}"]
      }

      resources {
        cpu    = 200
        memory = 128
      }

      service {
        name     = "web"
        port     = "http"
        provider = "nomad"
        tags     = ["urlprefix-/"]

        check {
          type     = "http"
          path     = "/"
          interval = "10s"
          timeout  = "2s"
        }
      }
    }
  }
}
