# A nightly batch job.
# expect: accept
job "nightly" {
  type = "batch"
  periodic {
    crons            = ["0 3 * * *"]
    prohibit_overlap = true
    time_zone        = "Europe/Paris"
  }
  group "g" {
    task "backup" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = ["backup"]
      }
    }
  }
}
