# A task reading a Vault secret: Drover has no Vault.
# expect: refuse vault block
job "vaulted" {
  group "g" {
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      vault {
        role = "app"
      }
      template {
        data        = "{{ with secret \"kv/data/app\" }}{{ .Data.data.password }}{{ end }}"
        destination = "secrets/password"
      }
    }
  }
}
