// Package docker is the docker driver: a task is a container run through
// the Docker Engine API with the Engine's own client
// (github.com/moby/moby/client), which negotiates the API version with
// the daemon (1.40 and newer).
//
// # Images
//
// image.go, auth.go: an image is pulled when the node lacks it, when its
// tag is latest or omitted (a digest never), or with force_pull, as
// Nomad does; pulls of one reference are serialised so tasks starting
// together pull once. Progress goes to the task's events ("Downloading
// image", then the bytes so far every few seconds, then the total);
// image_pull_timeout bounds the pull and pull_activity_timeout (the
// task's, at most the plugin's) ends one that stopped progressing.
// Credentials are the task's auth block, else the plugin's auth { config }
// (a docker config.json: credHelpers, auths, credsStore for the image's
// registry), else its auth { helper } (docker-credential-<helper> on
// PATH, through docker-credential-helpers' client); auth_soft_fail pulls
// anonymously when the lookup fails. A failed pull names the image and
// the registry: ImageNotFoundError, or PullError (access denied, timeout,
// unreachable). The plugin's gc { image image_delay } removes an image
// image_delay after the last task on the node using it is destroyed
// (imageRefs counts the users by image ID, re-attached tasks included).
//
// # Task options
//
// config.go, options.go, container.go: TaskConfig decodes every option of
// Nomad's docker task config that Drover acts on; Options lists all of
// Nomad's options with works or refused and why, and DecodeTaskConfig
// (which the server's job validation also runs) refuses a refused option
// by name and any other key as unknown. options_test.go creates a
// container per group of options through the driver and checks each
// option on the daemon's inspect. cap_add is checked against the
// plugin's allow_caps (Docker's default set unless configured),
// runtime against allow_runtimes (runc unless configured), at Start:
// those are client settings the server cannot see. resources.cores pins
// the reserved cores as the container's cpuset.
//
// # Containers
//
// The container is named <task>-<alloc id> and labelled with both and
// its alloc dir; the alloc dir, task local dir and secrets dir are bound
// at /alloc, /local and /secrets; ports listed in the config (or in
// port_map) are published on the host at their allocated value and
// forwarded to their `to` (or port_map) port; memory and CPU come from
// the task's resources. Output is streamed from the daemon into the
// task's stdout and stderr logs (one stream when tty is set). The plugin's
// gc { container = false } leaves a destroyed task's container stopped.
//
// # Recovery
//
// recover.go, reconcile.go: a restarted client re-attaches to each task's
// container by the ID in its handle. Containers no task re-attached to
// and whose alloc dir is gone (the alloc was collected while the client
// was down) are removed by the sweep of gc { dangling_containers }
// (every period, default 5m, the first one period after start, sparing
// containers younger than creation_grace; dry_run only logs them). A
// container whose alloc dir still exists is never swept: it may belong
// to another client sharing the daemon.
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
// needs allow_privileged; network_mode, pid_mode, ipc_mode, uts_mode,
// userns_mode = host (or container:) need allow_host_namespaces (a drover
// key; Nomad has none). Bind mounts in mount blocks go through the same
// checks as volumes; a volume driver (volume_driver, or a mount's
// driver_config) needs volumes { enabled }.
// Exec into a container (exectask.go) uses the Engine API's exec, whose
// attached connection is half-closed when stdin ends.
package docker
