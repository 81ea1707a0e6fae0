# A GPU job: devices are not scheduled by Drover yet.
# expect: refuse Resources.Devices
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
