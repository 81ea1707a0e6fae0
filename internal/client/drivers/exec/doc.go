// Package exec is the exec driver: like raw_exec, but the task is
// isolated. It gets its own mount, PID, IPC and UTS namespaces, is
// chrooted into its task dir with the host's essentials (/usr, /bin,
// /lib*, /etc/ld.so.cache, /etc/passwd, ...) bind-mounted read-only, and
// is held to its CPU and memory allocation by a per-task cgroup (v2 when
// /sys/fs/cgroup/cgroup.controllers exists, v1 otherwise). It needs root
// on Linux; without it the driver fingerprints as undetected.
//
// # The executor
//
// Namespaces and mounts must be set up between fork and exec, which Go
// cannot do in-process, so the driver starts a helper: the drover binary
// re-executing itself. main must dispatch to it before anything else:
//
//	if len(os.Args) > 1 && os.Args[1] == exec.ExecutorArg {
//		exec.ExecutorMain() // never returns
//	}
//
// The executor is PID 1 of the task's PID namespace. It joins the task's
// cgroup, builds the chroot, starts the task, reports success or a setup
// error on a status pipe, forwards signals to the task's process group,
// reaps, and writes the task's exit status to a file before exiting. When
// it exits the kernel kills whatever is left in the namespace, so killing
// the executor kills the whole task tree, and the mounts vanish with the
// namespace. Because the executor (not the client) is the task's parent,
// a restarted client still learns the real exit status from that file.
//
// Tests point Options.ExecutorCommand at the test binary and dispatch in
// TestMain on an environment variable.
//
// # Security
//
// security.go: tasks run as nobody; a task's user must pass the plugin
// config's user { allowlist denylist } (default denylist root/0, checked by
// name and uid). The executor drops every capability outside the task's set
// from the bounding set of the thread that forks the task and sets
// no_new_privs: Nomad's exec default (allow_caps) minus mknod and
// sys_chroot, widened only by allow_caps + task cap_add, narrowed by
// cap_drop. A non-root task holds no capability at all. The task's local and
// secrets dirs are chowned to its user; the alloc's shared dirs are 1777.
// Exec into a task (exectask.go) enters the task process's
// mount/pid/ipc/uts/net namespaces, chroot and uid/gid with util-linux
// nsenter, and on cgroup v2 is created inside the task's cgroup
// (CLONE_INTO_CGROUP).
package exec
