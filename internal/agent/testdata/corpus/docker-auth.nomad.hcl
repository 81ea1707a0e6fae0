# A private image with registry credentials in the task config: auth is
# honoured by the docker driver, and a typo is caught at register.
# expect: refuse Config.force_pulll
job "private" {
  group "g" {
    task "app" {
      driver = "docker"
      config {
        image = "registry.example.com/team/app:1.0"
        auth {
          username = "ci"
          password = "secret"
        }
        force_pulll = true
      }
    }
  }
}
