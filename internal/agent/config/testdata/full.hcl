region     = "eu"
datacenter = "dc2"
name       = "node-1"
data_dir   = "/var/lib/drover"
bind_addr  = "10.0.0.5"
log_level  = "debug"

ports {
  http = 5646
  rpc  = 5647
  serf = 5648
}

addresses {
  http = "0.0.0.0"
  rpc  = "10.0.0.6"
}

server {
  enabled                   = true
  bootstrap_expect          = 3
  num_schedulers            = 2
  event_buffer_size         = 64
  enabled_schedulers        = ["service", "batch"]
  heartbeat_grace           = "30s"
  min_heartbeat_ttl         = "20s"
  max_heartbeats_per_second = 25.5
  eval_gc_threshold         = "2h"
  job_gc_threshold          = "5h"
  node_gc_threshold         = "48h"

  server_join {
    retry_join     = ["10.0.0.1", "10.0.0.2"]
    retry_interval = "15s"
    retry_max      = 3
  }
  raft_logstore {
    backend = "boltdb"
  }
}

client {
  enabled           = true
  servers           = ["10.0.0.1:4647"]
  node_class        = "compute"
  node_pool         = "gpu"
  meta              = { rack = "r1", zone = "a" }
  options           = { "driver.raw_exec.enable" = "1" }
  state_dir         = "/var/lib/drover/client"
  alloc_dir         = "/var/lib/drover/alloc"
  network_interface = "eth0"
  cpu_total_compute = 8000
  memory_total_mb   = 16384

  reserved {
    cpu            = 500
    memory         = 512
    disk           = 1024
    reserved_ports = "22,80,8000-8100"
  }
}

plugin "docker" {
  config {
    endpoint        = "unix:///var/run/docker.sock"
    allow_privileged = false
    pull_timeout    = 5
    ratio           = 0.5
    extra_labels    = ["job_name", "task_name"]

    volumes {
      enabled = true
    }

    gc {
      image       = true
      image_delay = "3m"
      dangling_containers {
        enabled = false
      }
    }

    auth "registry.example.com" {
      user = "me"
    }
    allow_caps = ["audit_write"]
    mounts { target = "/a" }
    mounts { target = "/b" }
  }
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}
