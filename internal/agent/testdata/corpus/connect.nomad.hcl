# Consul Connect with an upstream: Consul and Connect are each refused (the
# bridge network is honoured; with docker tasks the server refuses it too,
# once the Consul parts are gone).
# expect: refuse Services[0].Provider
# expect: refuse connect block
job "mesh" {
  group "api" {
    network {
      mode = "bridge"
    }
    service {
      name = "api"
      port = "9001"
      connect {
        sidecar_service {
          proxy {
            upstreams {
              destination_name = "db"
              local_bind_port  = 5432
            }
          }
        }
      }
    }
    task "api" {
      driver = "docker"
      config {
        image = "hashicorp/counter-api:v3"
      }
    }
  }
}
