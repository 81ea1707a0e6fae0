# A Nomad agent configuration that sets every key Nomad documents for the
# agent (general, server, client, acl, tls, telemetry, limits, autopilot,
# consul, vault, ui, audit, plugin, sentinel, reporting, keyring), written
# as an operator would. TestKeys_EveryNomadKeyLoadsOrIsRefusedOnce loads it.
"region"      = "eu"
datacenter    = "dc1"
name          = "node-1"
data_dir      = "/opt/nomad/data"
bind_addr     = "0.0.0.0"
log_level     = "INFO"
log_json      = true
log_file      = "/var/log/nomad/"
log_rotate_bytes     = 1048576
log_rotate_duration  = "24h"
log_rotate_max_files = 5
log_include_location = true
enable_syslog   = false
syslog_facility = "LOCAL0"
enable_debug    = false
leave_on_interrupt = true
leave_on_terminate = true
plugin_dir    = "/opt/nomad/plugins"
disable_update_check        = true
disable_anonymous_signature = true
http_api_response_headers {
  "Access-Control-Allow-Origin" = "*"
}

ports {
  http = 4646
  rpc  = 4647
  serf = 4648
}

addresses {
  http = "0.0.0.0"
  rpc  = "0.0.0.0"
  serf = "0.0.0.0"
}

advertise {
  http = "10.0.0.1"
  rpc  = "10.0.0.1"
  serf = "10.0.0.1:4648"
}

limits {
  https_handshake_timeout   = "5s"
  http_max_conns_per_client = 100
  rpc_handshake_timeout     = "5s"
  rpc_max_conns_per_client  = 100
}

acl {
  enabled                  = true
  token_ttl                = "30s"
  policy_ttl               = "30s"
  role_ttl                 = "30s"
  token_min_expiration_ttl = "1m"
  token_max_expiration_ttl = "24h"
  replication_token        = "abcd"
}

tls {
  http                   = true
  rpc                    = true
  ca_file                = "/etc/certs/ca.crt"
  cert_file              = "/etc/certs/nomad.crt"
  key_file               = "/etc/certs/nomad.key"
  verify_server_hostname = true
  verify_https_client    = true
  rpc_upgrade_mode       = false
  tls_cipher_suites      = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
  tls_min_version        = "tls12"
  tls_prefer_server_cipher_suites = true
}

telemetry {
  collection_interval            = "1s"
  disable_hostname               = true
  use_node_name                  = false
  enable_hostname_label          = false
  statsd_address                 = "127.0.0.1:8125"
  statsite_address               = "127.0.0.1:8126"
  dogstatsd_address              = "127.0.0.1:8127"
  dogstatsd_tags                 = ["env:prod"]
  prometheus_metrics             = true
  publish_allocation_metrics     = true
  publish_node_metrics           = true
  filter_default                 = true
  prefix_filter                  = ["-nomad.raft"]
  disable_dispatched_job_summary_metrics = true
  disable_rpc_rate_metrics_labels   = true
  disable_allocation_hook_metrics   = true
  disable_quota_utilization_metrics = true
  in_memory_collection_interval  = "10s"
  in_memory_retention_period     = "1m"
  circonus_api_token                     = "t"
  circonus_api_app                       = "nomad"
  circonus_api_url                       = "https://api.circonus.com/v2"
  circonus_submission_interval           = "10s"
  circonus_submission_url                = "https://x"
  circonus_check_id                      = "1"
  circonus_check_force_metric_activation = "false"
  circonus_check_instance_id             = "i"
  circonus_check_search_tag              = "s"
  circonus_check_display_name            = "d"
  circonus_check_tags                    = "a:b"
  circonus_broker_id                     = "b"
  circonus_broker_select_tag             = "t"
}

autopilot {
  cleanup_dead_servers      = true
  last_contact_threshold    = "200ms"
  max_trailing_logs         = 250
  server_stabilization_time = "10s"
  min_quorum                = 3
  enable_redundancy_zones   = false
  disable_upgrade_migration = false
  enable_custom_upgrades    = false
}

consul {
  address             = "127.0.0.1:8500"
  auth                = "user:pass"
  auto_advertise      = true
  ca_file             = "/etc/consul/ca.crt"
  cert_file           = "/etc/consul/c.crt"
  key_file            = "/etc/consul/c.key"
  checks_use_advertise = false
  client_auto_join    = true
  client_service_name = "nomad-client"
  grpc_address        = "127.0.0.1:8502"
  namespace           = "default"
  server_auto_join    = true
  server_service_name = "nomad"
  share_ssl           = true
  ssl                 = false
  tags                = ["a"]
  timeout             = "5s"
  token               = "t"
  verify_ssl          = true
}

vault {
  enabled          = false
  address          = "https://vault.example.com:8200"
  ca_file          = "/etc/vault/ca.crt"
  create_from_role = "nomad-cluster"
  namespace        = "ns"
  jwt_auth_backend_path = "jwt-nomad"
  default_identity {
    aud = ["vault.io"]
    ttl = "1h"
  }
}

ui {
  enabled = true
  show_cli_hints = true
  content_security_policy {
    connect_src = ["*"]
  }
  consul {
    ui_url = "https://consul.example.com/ui"
  }
  vault {
    ui_url = "https://vault.example.com/ui"
  }
  label {
    text             = "Prod"
    background_color = "red"
    text_color       = "white"
  }
}

audit {
  enabled = true
  sink "file" {
    type               = "file"
    delivery_guarantee = "enforced"
    format             = "json"
    path               = "/var/lib/nomad/audit/audit.log"
  }
}

sentinel {
  import "custom" {
    path = "/opt/sentinel/custom"
  }
}

reporting {
  license {
    enabled = false
  }
}

keyring "awskms" {
  active     = true
  region     = "us-east-1"
  kms_key_id = "alias/nomad"
}

plugin "docker" {
  args = []
  config {
    allow_privileged = true
  }
}

server {
  enabled                   = true
  bootstrap_expect          = 3
  authoritative_region      = "eu"
  data_dir                  = "/opt/nomad/server"
  num_schedulers            = 2
  enabled_schedulers        = ["service", "batch", "system", "sysbatch"]
  event_buffer_size         = 100
  enable_event_broker       = true
  encrypt                   = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="
  heartbeat_grace           = "10s"
  min_heartbeat_ttl         = "10s"
  failover_heartbeat_ttl    = "5m"
  max_heartbeats_per_second = 50.0
  eval_gc_threshold         = "1h"
  batch_eval_gc_threshold   = "24h"
  job_gc_interval           = "5m"
  job_gc_threshold          = "4h"
  node_gc_threshold         = "24h"
  deployment_gc_threshold   = "1h"
  csi_volume_claim_gc_interval  = "5m"
  csi_volume_claim_gc_threshold = "1h"
  csi_plugin_gc_threshold       = "1h"
  acl_token_gc_threshold        = "1h"
  root_key_gc_interval          = "10m"
  root_key_gc_threshold         = "1h"
  root_key_rotation_threshold   = "720h"
  deployment_query_rate_limit   = 100.0
  job_default_priority          = 50
  job_max_priority              = 100
  job_max_source_size           = "1M"
  job_tracked_versions          = 6
  job_max_count                 = 5000
  license_path                  = "/etc/nomad/license.hclic"
  non_voting_server             = false
  redundancy_zone               = "az1"
  upgrade_version               = "1.0.0"
  oidc_issuer                   = "https://nomad.example.com"
  raft_protocol                 = 3
  raft_multiplier               = 2
  raft_snapshot_interval        = "120s"
  raft_snapshot_threshold       = 8192
  raft_trailing_logs            = 10240
  rejoin_after_leave            = false
  retry_join                    = ["10.0.0.2"]
  retry_interval                = "30s"
  retry_max                     = 0
  start_join                    = ["10.0.0.3"]
  node_registration_token       = "secret"

  default_scheduler_config {
    scheduler_algorithm             = "spread"
    memory_oversubscription_enabled = true
    reject_job_registration         = false
    pause_eval_broker               = false
    preemption_config {
      batch_scheduler_enabled    = true
      system_scheduler_enabled   = true
      sysbatch_scheduler_enabled = false
      service_scheduler_enabled  = false
    }
  }

  server_join {
    retry_join     = ["10.0.0.2", "10.0.0.3"]
    retry_max      = 3
    retry_interval = "15s"
    start_join     = ["10.0.0.4"]
  }

  raft_logstore {
    backend = "wal"
    boltdb {
      no_freelist_sync = true
    }
    wal {
      disable_log_cache = false
    }
  }

  raft_boltdb {
    no_freelist_sync = true
  }

  plan_rejection_tracker {
    enabled        = true
    node_threshold = 100
    node_window    = "5m"
  }

  search {
    fuzzy_enabled   = true
    limit_query     = 20
    limit_results   = 100
    min_term_length = 2
  }

  client_introduction {
    enforcement = "warn"
  }
}

client {
  enabled           = true
  servers           = ["10.0.0.1:4647"]
  state_dir         = "/opt/nomad/client"
  alloc_dir         = "/opt/nomad/alloc"
  alloc_mounts_dir  = "/opt/nomad/mounts"
  node_class        = "compute"
  node_pool         = "default"
  network_interface = "eth0"
  cpu_total_compute = 8000
  memory_total_mb   = 16384
  disk_total_mb     = 100000
  disk_free_mb      = 50000
  min_dynamic_port  = 21000
  max_dynamic_port  = 31000
  max_kill_timeout  = "60s"
  gc_interval              = "2m"
  gc_max_allocs            = 40
  gc_disk_usage_threshold  = 85
  gc_inode_usage_threshold = 75
  gc_parallel_destroys     = 3
  gc_volumes_on_node_gc    = false
  network_speed            = 1000
  preferred_address_family = "ipv4"
  cpu_disable_dmidecode    = true
  disable_remote_exec      = false
  node_max_allocs          = 100
  no_host_uuid             = true
  cgroup_parent            = "nomad.slice"
  cni_path                 = "/opt/cni/bin"
  cni_config_dir           = "/opt/cni/config"
  bridge_network_name      = "nomad"
  bridge_network_subnet    = "172.26.64.0/20"
  bridge_network_subnet_ipv6 = "fd00:a110:c8::/112"
  bridge_network_hairpin_mode = false
  bind_wildcard_default_host_network = true
  nomad_service_discovery = true
  host_volumes_dir        = "/opt/nomad/host_volumes"
  host_volume_plugin_dir  = "/opt/nomad/host_volume_plugins"
  common_plugin_dir       = "/opt/nomad/common_plugins"
  node_registration_token = "secret"

  chroot_env {
    "/bin" = "/bin"
  }

  meta {
    "rack"     = "r1"
    "owner.id" = "team-a"
  }

  options {
    "driver.raw_exec.enable" = "1"
  }

  reserved {
    cpu            = 500
    cores          = "0"
    memory         = 512
    disk           = 1024
    reserved_ports = "22,80,8000-8100"
  }

  host_volume "certs" {
    path      = "/etc/ssl/certs"
    read_only = true
  }

  host_network "public" {
    cidr           = "203.0.113.0/24"
    reserved_ports = "22"
  }

  host_network "private" {
    interface = "eth1"
  }

  drain_on_shutdown {
    deadline           = "1m"
    force              = true
    ignore_system_jobs = true
  }

  server_join {
    retry_join     = ["10.0.0.1"]
    retry_interval = "15s"
    retry_max      = 3
    start_join     = ["10.0.0.1"]
  }

  artifact {
    http_read_timeout = "30m"
    http_max_size     = "100GB"
    gcs_timeout       = "30m"
    git_timeout       = "30m"
    hg_timeout        = "30m"
    s3_timeout        = "30m"
    decompression_file_count_limit = 4096
    decompression_size_limit       = "100GB"
    disable_filesystem_isolation   = false
    set_environment_variables      = ""
  }

  template {
    function_denylist    = ["plugin"]
    disable_file_sandbox = false
    max_stale            = "87600h"
    block_query_wait     = "5m"
    wait {
      min = "5s"
      max = "4m"
    }
    wait_bounds {
      min = "5s"
      max = "10s"
    }
    consul_retry {
      attempts = 12
    }
  }

  users {
    dynamic_user_min = 80000
    dynamic_user_max = 89999
  }
}
