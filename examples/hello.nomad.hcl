job "hello" {
  datacenters = ["dc1"]
  type = "batch"
  group "g" {
    task "say" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello from ${NOMAD_TASK_NAME} on ${node.unique.name}; sleep 1"]
      }
      resources {
        cpu = 100
        memory = 64
      }
    }
  }
}
