job "reports" {
  type = "batch"

  periodic {
    crons            = ["0 * * * *", "30 2 * * 1"]
    prohibit_overlap = true
    time_zone        = "Europe/Paris"
  }

  parameterized {
    payload       = "required"
    meta_required = ["customer"]
    meta_optional = ["format"]
  }

  group "run" {
    task "report" {
      driver = "raw_exec"

      dispatch_payload {
        file = "input.json"
      }

      config {
        command = "/usr/local/bin/report"
        args    = ["--customer", "${NOMAD_META_customer}"]
      }
    }
  }
}
