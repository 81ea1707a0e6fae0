// Package docker is the docker driver: a task is a container run through
// the Docker Engine API (a small client of our own over the daemon's
// socket). Images are never pulled: this driver serves machines without a
// registry, so an image must already be present locally.
//
// The container is named <task>-<alloc id> and labelled with both; the
// alloc dir, task local dir and secrets dir are bound at /alloc, /local
// and /secrets; ports listed in the config are published on the host at
// their allocated value and forwarded to their `to` port; memory and CPU
// come from the task's resources. Output is streamed from the daemon into
// the task's stdout and stderr logs.
package docker
