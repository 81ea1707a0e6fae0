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
//
// # Host access
//
// isolation.go, volume_beneath.go: absolute host paths in volumes need
// plugin "docker" { config { volumes { enabled = true } } }; relative ones
// resolve from the task dir and must stay in the alloc dir. Checking a path
// and handing Docker the path would race a task that swaps a directory for a
// symlink in between, so the driver opens the directory itself, in one
// kernel step (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, an
// O_NOFOLLOW walk on kernels without it; missing directories are made with
// mkdirat on parents opened the same way), bind-mounts that open directory
// (/proc/self/fd/N) onto a fresh root-only <alloc>/.docker-volume-*/v, gives
// Docker that path, and unmounts it once the container has started (a
// staging dir left by a client that died mid-start is removed by the next
// staging in its alloc dir, staging_dirs.go). (/proc/<pid>/fd/N given to
// Docker directly fails: runc mounts from its own mount namespace, and the
// kernel refuses a bind from another one.) This needs a root client sharing
// dockerd's mount namespace. A test swaps a directory and a symlink to a
// host dir with renameat2(RENAME_EXCHANGE) in a loop while containers start;
// the former check-then-path code lost on its first attempt. privileged
// needs allow_privileged; network_mode, pid_mode, ipc_mode, uts_mode = host
// (or container:) need allow_host_namespaces (a drover key; Nomad has none).
// Exec into a container (exectask.go) uses the Engine API's exec on a
// hijacked connection (half-closed when stdin ends).
package docker
