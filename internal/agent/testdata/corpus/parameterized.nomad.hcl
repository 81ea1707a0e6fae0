# A dispatchable job that writes its payload into the task dir.
# expect: accept
job "transcode" {
  type = "batch"
  parameterized {
    payload       = "required"
    meta_required = ["input"]
    meta_optional = ["profile"]
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/cat"
        args    = ["local/input.json"]
      }
      dispatch_payload {
        file = "input.json"
      }
    }
  }
}
