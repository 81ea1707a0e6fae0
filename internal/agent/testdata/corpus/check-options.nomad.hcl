# A native service with the check and service options not supported yet.
# expect: refuse Services[0].CanaryTags
# expect: refuse Services[0].Meta
# expect: refuse Services[0].TaggedAddresses
# expect: refuse Services[0].AddressMode
# expect: refuse Checks[0].Header
# expect: refuse Checks[0].SuccessBeforePassing
# expect: refuse Checks[0].OnUpdate
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
