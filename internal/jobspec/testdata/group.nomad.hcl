job "grp" {
  group "api" {
    count          = 2
    shutdown_delay = "5s"

    max_client_disconnect        = "1h"
    stop_after_client_disconnect = "90s"

    meta = {
      role = "api"
    }

    restart {
      attempts         = 2
      interval         = "30m"
      delay            = "15s"
      mode             = "fail"
      render_templates = true
    }

    reschedule {
      unlimited = true
    }

    ephemeral_disk {
      sticky  = true
      migrate = true
      size    = 300
    }

    update {
      max_parallel = 3
    }

    migrate {
      max_parallel = 2
    }

    disconnect {
      lost_after           = "6h"
      stop_on_client_after = "1h"
      replace              = false
      reconcile            = "keep_original"
    }

    network {
      mode     = "bridge"
      hostname = "api"

      port "http" {
        to = 8080
      }
      port "admin" {
        static       = 9000
        to           = 9001
        host_network = "private"
      }
      dns {
        servers = ["1.1.1.1"]
      }
      cni {
        args = {
          FOO = "bar"
        }
      }
    }

    volume "data" {
      type      = "host"
      source    = "api-data"
      read_only = true
    }

    scaling {
      min     = 1
      max     = 10
      enabled = true
      policy {
        cooldown = "1m"
        check "cpu" {
          source = "nomad-apm"
          query  = "avg_cpu"
          strategy "target-value" {
            target = 70
          }
        }
      }
    }

    service {
      name         = "api"
      port         = "http"
      tags         = ["v1", "http"]
      canary_tags  = ["canary"]
      address_mode = "auto"
      provider     = "nomad"
      on_update    = "require_healthy"

      meta {
        version = "1"
      }

      check {
        name     = "alive"
        type     = "http"
        path     = "/health"
        method   = "GET"
        interval = "10s"
        timeout  = "2s"
        header {
          Authorization = ["Bearer x"]
        }
        check_restart {
          limit = 3
          grace = "90s"
        }
      }
      check {
        type     = "tcp"
        port     = "admin"
        interval = "5s"
        timeout  = "1s"
      }

      connect {
        sidecar_service {}
      }
    }

    task "t" {
      driver = "docker"
      config {
        image = "api:1"
      }
    }
  }
}
