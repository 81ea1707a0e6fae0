# Restart in place a few times, then reschedule elsewhere with backoff.
# expect: accept
job "flaky" {
  reschedule {
    delay          = "30s"
    delay_function = "exponential"
    max_delay      = "1h"
    unlimited      = true
  }
  group "g" {
    restart {
      attempts = 3
      interval = "5m"
      delay    = "15s"
      mode     = "delay"
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/false"
      }
    }
  }
}
