variable "image" {
  type        = string
  default     = "nginx:default"
  description = "container image"
}

variable "count" {
  type    = number
  default = 1
  validation {
    condition     = var.count > 0 && var.count < 100
    error_message = "count must be between 1 and 99"
  }
}

variable "dcs" {
  type    = list(string)
  default = ["dc1"]
}

variable "labels" {
  type    = map(string)
  default = {}
}

variable "tier" {
  default = "web"
}

locals {
  name   = "${local.prefix}-${var.tier}"
  prefix = lower("APP")
  tags   = concat(["base"], [for k, v in var.labels : "${k}=${v}"])
}

job "vars" {
  datacenters = var.dcs
  meta = {
    name  = local.name
    tags  = join(",", local.tags)
    image = var.image
    n     = tostring(var.count)
  }

  group "g" {
    count = var.count
    task "t" {
      driver = "docker"
      config {
        image = var.image
      }
    }
  }
}
