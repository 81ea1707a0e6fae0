# Blue/green with canaries promoted automatically and reverted on failure.
# expect: accept
job "canary" {
  update {
    max_parallel      = 2
    canary            = 2
    auto_promote      = true
    auto_revert       = true
    health_check      = "task_states"
    min_healthy_time  = "10s"
    healthy_deadline  = "5m"
    progress_deadline = "10m"
  }
  group "g" {
    count = 2
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
