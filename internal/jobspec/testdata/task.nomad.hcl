job "tsk" {
  group "g" {
    task "main" {
      driver         = "docker"
      user           = "nobody"
      kill_timeout   = "45s"
      kill_signal    = "SIGINT"
      leader         = true
      shutdown_delay = "3s"

      config {
        image      = "app:2"
        privileged = false
        ports      = ["http", "grpc"]
        labels {
          team = "core"
        }
        mount {
          type   = "bind"
          source = "/etc/app"
          target = "/app/etc"
        }
        mount {
          type   = "tmpfs"
          target = "/tmp"
          tmpfs_options {
            size = 100000
          }
        }
        ratio = 0.5
      }

      env {
        LOG_LEVEL = "debug"
        PORT      = "${NOMAD_PORT_http}"
      }

      meta = {
        build = "42"
      }

      resources {
        cpu        = 500
        cores      = 2
        memory     = 256
        memory_max = 1024

        device "nvidia/gpu" {
          count = 2
          constraint {
            attribute = "${device.attr.memory}"
            operator  = ">="
            value     = "2 GiB"
          }
          affinity {
            attribute = "${device.model}"
            value     = "Tesla"
            weight    = 50
          }
        }
      }

      logs {
        max_files     = 5
        max_file_size = 20
      }

      template {
        data        = <<-EOT
          addr={{ env "NOMAD_ADDR_http" }}
          alloc=${NOMAD_ALLOC_ID}
        EOT
        destination = "local/app.conf"
        change_mode = "signal"
        change_signal = "SIGHUP"
        splay       = "10s"
        wait {
          min = "2s"
          max = "10s"
        }
      }

      artifact {
        source      = "https://example.com/app.tar.gz"
        destination = "local/app"
        mode        = "any"
        options {
          checksum = "sha256:abc"
        }
      }

      volume_mount {
        volume      = "data"
        destination = "/data"
        read_only   = true
      }

      restart {
        attempts = 1
      }

      vault {
        policies = ["app"]
      }
      consul {
        namespace = "x"
      }
      identity {
        env = true
      }
    }

    task "init" {
      driver = "exec"
      env = {
        MODE = "init"
      }
      lifecycle {
        hook    = "prestart"
        sidecar = false
      }
      config {
        command = "/bin/true"
      }
    }
  }
}
