variable "image" {
  type    = string
  default = "redis:7"
}

job "example-hcl" {
  datacenters = ["dc1"]

  group "cache" {
    count = 3

    task "redis" {
      driver = "docker"

      config {
        image = var.image
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
