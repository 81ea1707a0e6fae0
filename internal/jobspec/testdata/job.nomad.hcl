job "top" {
  region      = "eu"
  namespace   = "prod"
  name        = "top-name"
  type        = "service"
  priority    = 70
  all_at_once = true
  datacenters = ["dc1", "dc2"]
  node_pool   = "gpu"

  meta {
    owner = "team-a"
    tier  = 1
  }

  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }
  constraint {
    attribute = "${attr.nomad.version}"
    version   = ">= 1.6"
  }
  constraint {
    attribute = "${node.class}"
    regexp    = "^large-"
  }
  constraint {
    distinct_hosts = true
  }
  constraint {
    distinct_hosts = false
  }
  constraint {
    distinct_property = "${meta.rack}"
    value             = "2"
  }
  constraint {
    attribute = "${meta.tags}"
    operator  = "set_contains_any"
    value     = "a,b"
  }

  affinity {
    attribute = "${node.datacenter}"
    value     = "dc1"
    weight    = -50
  }

  spread {
    attribute = "${node.datacenter}"
    weight    = 100
    target "dc1" {
      percent = 60
    }
    target "dc2" {
      percent = 40
    }
  }

  update {
    stagger           = "30s"
    max_parallel      = 2
    health_check      = "checks"
    min_healthy_time  = "10s"
    healthy_deadline  = "5m"
    progress_deadline = "10m"
    canary            = 1
    auto_revert       = true
    auto_promote      = false
  }

  migrate {
    max_parallel     = 1
    health_check     = "task_states"
    min_healthy_time = "15s"
    healthy_deadline = "2m"
  }

  reschedule {
    attempts       = 3
    interval       = "1h"
    delay          = "30s"
    delay_function = "exponential"
    max_delay      = "10m"
    unlimited      = false
  }

  group "g" {
    task "t" {
      driver = "exec"
    }
  }
}
