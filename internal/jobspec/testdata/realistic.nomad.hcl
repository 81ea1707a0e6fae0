# A realistic multi-group service in the style of Nomad's examples.
variable "version" {
  type    = string
  default = "1.4.2"
}

variable "replicas" {
  type    = number
  default = 3
}

locals {
  image = "registry.example.com/shop/frontend:${var.version}"
  env   = "production"
}

job "shop" {
  datacenters = ["us-east-1a", "us-east-1b"]
  type        = "service"
  priority    = 60

  meta {
    version = var.version
  }

  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }

  update {
    max_parallel      = 1
    min_healthy_time  = "30s"
    healthy_deadline  = "5m"
    progress_deadline = "10m"
    auto_revert       = true
    canary            = 1
  }

  group "frontend" {
    count = var.replicas

    spread {
      attribute = "${node.datacenter}"
    }

    network {
      port "http" {
        to = 3000
      }
    }

    service {
      name     = "frontend"
      port     = "http"
      provider = "nomad"
      tags     = ["env-${local.env}", "version-${var.version}"]

      check {
        type     = "http"
        path     = "/healthz"
        interval = "15s"
        timeout  = "3s"
      }
    }

    restart {
      attempts = 3
      interval = "10m"
      delay    = "20s"
      mode     = "delay"
    }

    task "frontend" {
      driver = "docker"

      config {
        image = local.image
        ports = ["http"]
        logging {
          type = "json-file"
          config {
            max-size = "10m"
          }
        }
      }

      env {
        NODE_ENV   = local.env
        PORT       = "${NOMAD_PORT_http}"
        BACKEND    = "http://${NOMAD_UPSTREAM_ADDR_backend}"
        HOST_NAME  = "${node.unique.name}"
      }

      template {
        data        = <<EOH
API_KEY={{ with nomadVar "nomad/jobs/shop" }}{{ .api_key }}{{ end }}
EOH
        destination = "secrets/app.env"
        env         = true
      }

      resources {
        cpu    = 500
        memory = 512
      }
    }

    task "log-shipper" {
      driver = "docker"

      lifecycle {
        hook    = "poststart"
        sidecar = true
      }

      config {
        image = "grafana/promtail:2.9.0"
        args  = ["-config.file=local/promtail.yml"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }

  group "worker" {
    count = 2

    ephemeral_disk {
      size = 500
    }

    task "worker" {
      driver = "docker"

      config {
        image   = local.image
        command = "worker"
        args    = ["--concurrency", "${attr.cpu.numcores}"]
      }

      resources {
        cpu    = 1000
        memory = 1024
      }

      logs {
        max_files     = 3
        max_file_size = 10
      }
    }
  }
}
