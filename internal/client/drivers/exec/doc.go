// Package exec is the exec driver: like raw_exec, but the task is
// isolated. It gets its own mount, PID, IPC, UTS and cgroup namespaces
// (and the alloc's network namespace in bridge mode), its root is its task
// dir by pivot_root (not chroot: the host's tree is unmounted from the
// namespace) with the host's essentials (/usr, /bin, /lib*,
// /etc/ld.so.cache, /etc/passwd, ...) bind-mounted read-only, and it is
// held to its allocation by a per-task cgroup (v2 when
// /sys/fs/cgroup/cgroup.controllers exists, v1 otherwise). It needs root
// on Linux; without it the driver fingerprints as undetected.
//
// # Filesystem
//
// rootfs.go: a fresh /proc (the task's PID namespace only) with runc's
// masks (/proc/kcore, keys, timer_list, latency_stats, sched_debug,
// timer_stats under /dev/null; /proc/acpi, asound, scsi, /sys/firmware,
// /sys/devices/virtual/powercap under an empty read-only tmpfs) and
// read-only /proc/sys, sysrq-trigger, irq, bus and fs; a read-only sysfs;
// at /sys/fs/cgroup the task's own cgroup dirs, read-only (v2: the
// unified dir; v1: one dir per controller); a small /dev with null, zero,
// full, random, urandom, tty. The executor holds no host path open the task
// could reach: it is not dumpable, and its root is the task's.
//
// This is an own executor rather than runc's libcontainer: libcontainer
// needs its cgo nsexec init linked into the binary and an OCI-spec
// translation of every setting, for the same kernel calls made here; the
// tests check each mask and limit from inside a task.
//
// # Cgroups
//
// cgroup.go, through opencontainers/cgroups (fs for v1, fs2 for v2):
// memory is the hard limit (memory.max / memory.limit_in_bytes, swap held
// to it) unless memory_max raises it, then memory is the soft limit
// (memory.low / memory.soft_limit_in_bytes); resources.cpu is cpu.shares
// (v2: cpu.weight); the task options cpu_hard_limit and cpu_cfs_period add a
// CFS quota (cpu.max / cpu.cfs_quota_us) of cpu MHz over one core's MHz;
// reserved cores are the cpuset; pids_limit is pids.max. The executor's
// own threads count against pids_limit.
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
// cgroup, builds the task's root and pivots into it, starts the task,
// reports success or a setup error on a status pipe, forwards signals to
// the task's process group, reaps, and writes the task's exit status to a
// file (through a directory descriptor opened before pivot_root) before
// exiting. When
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
// Exec into a task (exectask.go) starts the command from a client thread
// locked for the purpose, that has joined the task process's ipc, uts,
// net, cgroup, pid and mount namespaces with setns (no nsenter) and
// dropped the capabilities outside the task's bounding set, with
// no_new_privs; it runs as the task's uid/gid, and on cgroup v2 is created
// inside the task's cgroup (CLONE_INTO_CGROUP; on v1 it joins right after
// the fork). The thread is never unlocked, so it ends with its goroutine.
package exec
