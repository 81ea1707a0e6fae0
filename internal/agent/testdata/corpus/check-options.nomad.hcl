# A native service with Nomad's check and service options: canary tags,
# meta, tagged addresses, check headers, thresholds and on_update are
# honoured; address_mode "driver" is not (drivers report no address).
# expect: refuse Services[0].AddressMode
job "checked" {
  group "g" {
    network {
      port "http" {}
    }
    service {
      provider     = "nomad"
      name         = "checked"
      port         = "http"
      canary_tags  = ["canary"]
      address_mode = "driver"
      meta {
        version = "1"
      }
      tagged_addresses {
        lan = "10.0.0.1"
      }
      check {
        type                   = "http"
        path                   = "/health"
        interval               = "10s"
        timeout                = "2s"
        success_before_passing = 2
        on_update              = "ignore"
        header {
          Host = ["checked.example.com"]
        }
      }
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
