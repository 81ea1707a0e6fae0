# Fetch a release archive before start; headers are not supported yet.
# expect: refuse Artifacts[1].GetterHeaders
job "fetch" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "local/app/run.sh"
      }
      artifact {
        source      = "https://example.com/app.tar.gz"
        destination = "local/app"
        mode        = "dir"
        options {
          checksum = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
        }
      }
      artifact {
        source = "https://example.com/config.json"
        headers {
          Authorization = "Bearer x"
        }
      }
    }
  }
}
