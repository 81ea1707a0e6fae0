# Consul Connect with an upstream: Consul, bridge networking and Connect are
# each refused.
# expect: refuse Networks[0].Mode
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
