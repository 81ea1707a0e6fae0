# A CSI volume claim: Drover schedules host volumes only.
# expect: refuse Volumes[data].Type
# expect: refuse Volumes[data].AccessMode
# expect: refuse Volumes[data].AttachmentMode
job "db" {
  group "db" {
    volume "data" {
      type            = "csi"
      source          = "pg-data"
      access_mode     = "single-node-writer"
      attachment_mode = "file-system"
    }
    task "pg" {
      driver = "docker"
      config {
        image = "postgres:16"
      }
      volume_mount {
        volume      = "data"
        destination = "/var/lib/postgresql/data"
      }
    }
  }
}
