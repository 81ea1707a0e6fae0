# Drains move one alloc at a time, waiting for health.
# expect: accept
job "migrating" {
  group "g" {
    count = 3
    migrate {
      max_parallel     = 1
      health_check     = "task_states"
      min_healthy_time = "10s"
      healthy_deadline = "5m"
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
