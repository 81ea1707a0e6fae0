# A template with custom delimiters (for files that use {{ }} themselves).
# expect: refuse Templates[0].LeftDelim
# expect: refuse Templates[0].RightDelim
job "delims" {
  type = "batch"
  group "g" {
    task "render" {
      driver = "raw_exec"
      config {
        command = "/bin/cat"
        args    = ["local/out.txt"]
      }
      template {
        data            = "job=[[ env \"NOMAD_JOB_NAME\" ]] literal={{ keep }}"
        destination     = "local/out.txt"
        left_delimiter  = "[["
        right_delimiter = "]]"
      }
    }
  }
}
