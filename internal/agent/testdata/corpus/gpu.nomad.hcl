# A GPU job: scheduled only on nodes registered with a matching device
# (Drover clients load no device plugins, so it stays blocked otherwise).
# expect: accept
job "gpu" {
  type = "batch"
  group "train" {
    task "train" {
      driver = "docker"
      config {
        image   = "nvidia/cuda:12.2.0-base-ubuntu22.04"
        command = "nvidia-smi"
      }
      resources {
        cpu    = 500
        memory = 1024
        device "nvidia/gpu" {
          count = 1
          constraint {
            attribute = "${device.attr.memory}"
            operator  = ">="
            value     = "2 GiB"
          }
        }
      }
    }
  }
}
