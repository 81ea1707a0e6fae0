package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// devices are bound into the chroot's /dev.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// buildRoot lays out the chroot. It runs inside the executor's private
// mount namespace, so every mount disappears with the namespace and the
// host never sees them (the task dir on disk only gains mountpoints).
func buildRoot(spec *executorSpec) error {
	// Without this a shared / would propagate our mounts to the host.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
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
	return buildProcAndTmp(spec.Root)
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
