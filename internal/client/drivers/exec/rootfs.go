package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// devices are bound into the chroot's /dev.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// buildRoot lays out the task's root filesystem and pivots into it. It
// runs inside the executor's private mount namespace, so every mount
// disappears with the namespace and the host never sees them (the task dir
// on disk only gains mountpoints). After it returns, the executor's and
// the task's / is the task dir and the host's tree is unmounted from the
// namespace: unlike a chroot, there is no path back to it.
func buildRoot(spec *executorSpec) error {
	// Without this a shared / would propagate our mounts to the host.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	// pivot_root needs the new root to be a mount point.
	if err := syscall.Mount(spec.Root, spec.Root, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind the task root: %w", err)
	}
	for _, m := range spec.ReadOnly {
		if err := bindEssential(spec.Root, m); err != nil {
			return err
		}
	}
	for _, m := range spec.ReadWrite {
		if err := bind(m.Source, filepath.Join(spec.Root, m.Target), false); err != nil {
			return err
		}
	}
	if err := buildDev(spec.Root); err != nil {
		return err
	}
	if err := buildProcAndTmp(spec.Root); err != nil {
		return err
	}
	if err := buildSys(spec.Root, spec.CgroupDirs); err != nil {
		return err
	}
	if err := maskPaths(spec.Root); err != nil {
		return err
	}
	return pivotRoot(spec.Root)
}

// pivotRoot makes root the namespace's / and detaches the old root, as
// runc does: pivot_root(".", ".") stacks the old root on the new one,
// and a lazy unmount of "." (after making it a slave, so the unmount does
// not propagate) removes it.
func pivotRoot(root string) error {
	oldRoot, err := unix.Open("/", unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /: %w", err)
	}
	defer unix.Close(oldRoot)
	newRoot, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", root, err)
	}
	defer unix.Close(newRoot)
	if err := unix.Fchdir(newRoot); err != nil {
		return fmt.Errorf("chdir to the task root: %w", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Fchdir(oldRoot); err != nil {
		return fmt.Errorf("chdir to the old root: %w", err)
	}
	if err := unix.Mount("", ".", "", unix.MS_SLAVE|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("make the old root a slave: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmount the old root: %w", err)
	}
	return unix.Chdir("/")
}

// maskedPaths are hidden from the task (runc's default list): kernel
// memory, keyrings, timer and scheduler internals, firmware tables. A
// file is covered by /dev/null, a directory by an empty read-only tmpfs.
var maskedPaths = []string{
	"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
	"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
	"/sys/firmware", "/sys/devices/virtual/powercap",
}

// readOnlyPaths are bound read-only over themselves (runc's default
// list): no sysctl writes, no magic SysRq, no IRQ affinity changes.
var readOnlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}

// maskPaths applies maskedPaths and readOnlyPaths inside root; a path the
// kernel does not have is skipped.
func maskPaths(root string) error {
	const procFlags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	for _, p := range maskedPaths {
		target := filepath.Join(root, p)
		fi, err := os.Stat(target)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", target, "tmpfs", unix.MS_RDONLY|procFlags, "size=0,mode=555")
		} else {
			err = unix.Mount("/dev/null", target, "", unix.MS_BIND, "")
		}
		if err != nil {
			return fmt.Errorf("mask %s: %w", p, err)
		}
	}
	for _, p := range readOnlyPaths {
		target := filepath.Join(root, p)
		if _, err := os.Stat(target); err != nil {
			continue
		}
		if err := unix.Mount(target, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		if err := unix.Mount("", target, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|procFlags, ""); err != nil {
			return fmt.Errorf("remount %s read-only: %w", p, err)
		}
	}
	return nil
}

// buildSys mounts a read-only sysfs and, at /sys/fs/cgroup, the task's
// own cgroup dirs read-only: the task reads its limits (memory.max,
// cpuset.cpus.effective, pids.max, ...) and sees no other cgroup. On v2
// the unified dir is /sys/fs/cgroup; on v1 each controller's dir is
// /sys/fs/cgroup/<controller> on a read-only tmpfs.
func buildSys(root string, cgroupDirs map[string]string) error {
	const flags = unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	sys := filepath.Join(root, "sys")
	if err := os.MkdirAll(sys, 0o555); err != nil {
		return err
	}
	if err := unix.Mount("sysfs", sys, "sysfs", flags, ""); err != nil {
		return fmt.Errorf("mount /sys: %w", err)
	}
	cg := filepath.Join(sys, "fs", "cgroup")
	if _, err := os.Stat(cg); err != nil {
		return nil // a kernel without cgroupfs mountpoint in sysfs
	}
	if dir, ok := cgroupDirs["unified"]; ok {
		return bind(dir, cg, true)
	}
	if len(cgroupDirs) == 0 {
		return nil
	}
	if err := unix.Mount("tmpfs", cg, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=755,size=64k"); err != nil {
		return fmt.Errorf("mount /sys/fs/cgroup: %w", err)
	}
	for name, dir := range cgroupDirs {
		if err := bind(dir, filepath.Join(cg, name), true); err != nil {
			return err
		}
	}
	return unix.Mount("", cg, "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, "mode=755,size=64k")
}

// bindEssential mirrors one host path; symlinks are recreated so that a
// merged-/usr /bin -> usr/bin keeps pointing inside the chroot.
func bindEssential(root string, m mount) error {
	fi, err := os.Lstat(m.Source)
	if err != nil {
		return nil // not on this host
	}
	target := filepath.Join(root, m.Target)
	if fi.Mode()&os.ModeSymlink != 0 {
		link, err := os.Readlink(m.Source)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(link, target); err != nil && !os.IsExist(err) {
			return fmt.Errorf("link %s: %w", target, err)
		}
		return nil
	}
	return bind(m.Source, target, true)
}

// bind mounts source at target, creating a mountpoint of the right kind;
// read-only needs a second, remounting call.
func bind(source, target string, readOnly bool) error {
	fi, err := os.Stat(source)
	if err != nil {
		return fmt.Errorf("bind %s: %w", source, err)
	}
	if err := mountpoint(target, fi.IsDir()); err != nil {
		return err
	}
	if err := syscall.Mount(source, target, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s at %s: %w", source, target, err)
	}
	if !readOnly {
		return nil
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY | syscall.MS_NOSUID)
	if err := syscall.Mount("", target, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s read-only: %w", target, err)
	}
	return nil
}

func mountpoint(path string, dir bool) error {
	if dir {
		return os.MkdirAll(path, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return fmt.Errorf("mountpoint %s: %w", path, err)
	}
	return f.Close()
}

// buildDev puts a tmpfs on /dev so device mountpoints stay off the disk,
// then binds the harmless devices and the usual fd symlinks.
func buildDev(root string) error {
	dev := filepath.Join(root, "dev")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", dev, "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=64k"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for _, d := range devices {
		if _, err := os.Stat("/dev/" + d); err != nil {
			continue
		}
		if err := bind("/dev/"+d, filepath.Join(dev, d), false); err != nil {
			return err
		}
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(dev, name)); err != nil {
			return err
		}
	}
	return nil
}

// buildProcAndTmp mounts a fresh procfs, which shows only the task's PID
// namespace, and makes a world-writable /tmp.
func buildProcAndTmp(root string) error {
	proc := filepath.Join(root, "proc")
	if err := os.MkdirAll(proc, 0o555); err != nil {
		return err
	}
	if err := syscall.Mount("proc", proc, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		return err
	}
	return os.Chmod(tmp, 0o1777)
}
