# Every constraint operator Nomad documents.
# expect: accept
job "constrained" {
  constraint {
    attribute = "${attr.kernel.name}"
    operator  = "="
    value     = "linux"
  }
  constraint {
    attribute = "${node.class}"
    operator  = "!="
    value     = "tiny"
  }
  constraint {
    attribute = "${attr.cpu.arch}"
    operator  = "regexp"
    value     = "amd64|arm64"
  }
  constraint {
    attribute = "${attr.kernel.version}"
    operator  = "version"
    value     = ">= 3.10"
  }
  constraint {
    attribute = "${attr.kernel.version}"
    operator  = "semver"
    value     = ">= 3.0.0"
  }
  constraint {
    attribute = "${meta.tags}"
    operator  = "set_contains"
    value     = "ssd"
  }
  constraint {
    attribute = "${meta.zone}"
    operator  = "is_set"
  }
  constraint {
    attribute = "${meta.legacy}"
    operator  = "is_not_set"
  }
  constraint {
    distinct_hosts = true
  }
  group "g" {
    count = 2
    constraint {
      operator  = "distinct_property"
      attribute = "${meta.rack}"
      value     = "1"
    }
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
