# A service job whose updates roll out through a deployment; -var image=...
# makes a destructive change, -var canary=1 rolls it out behind a canary.
variable "image" {
  type    = string
  default = "nginx:1"
}

variable "canary" {
  type    = number
  default = 0
}

job "web" {
  datacenters = ["dc1"]

  group "web" {
    count = 2

    update {
      max_parallel     = 1
      canary           = var.canary
      min_healthy_time = "1s"
      healthy_deadline = "1m"
    }

    task "nginx" {
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
