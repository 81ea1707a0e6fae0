package docker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A relative volume is resolved and opened by the driver, inside the
// alloc dir, in one kernel step (openat2 RESOLVE_BENEATH). The open
// directory is then bind-mounted (through /proc/self/fd, so the mount is
// of what was opened, not of whatever the path names by then) onto a
// fresh root-only staging dir, and Docker is given the staging path. No
// component of that path is a task's to change: a task that swaps a
// directory for a symlink to / between the driver's check and Docker's
// mount cannot redirect it. The staging mounts are removed once the
// container has started; its own mounts, made at start, stay.
//
// Handing Docker /proc/<pid>/fd/<n> instead does not work: runc mounts
// from its own mount namespace, and the kernel refuses (EINVAL) a bind
// of a directory whose mount belongs to another namespace. Staging needs
// the client to run as root (CAP_SYS_ADMIN) and to share dockerd's mount
// namespace (or a shared propagation), as relative volumes, paths on the
// client's disk, assume anyway.

// stagingPrefix names the staging dirs in the alloc dir; task names are
// never hidden files, and the random suffix is created exclusively.
const stagingPrefix = ".docker-volume-"

// stagedVolumes are the staging mounts of one container start.
type stagedVolumes []string

// Close unmounts and removes each staging dir.
func (s stagedVolumes) Close() {
	for _, dir := range s {
		releaseStagingDir(dir)
	}
}

// stageVolume mounts src onto <allocRoot>/.docker-volume-XXXX/v and
// returns that staging dir. The staging dir is 0700 and root's, in the
// alloc root (sticky): nobody else can rename or replace it.
func stageVolume(allocRoot string, src *os.File) (string, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(src.Fd()), &st); err != nil {
		return "", err
	}
	dir, err := newStagingDir(allocRoot)
	if err != nil {
		return "", err
	}
	target := filepath.Join(dir, "v")
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = os.Mkdir(target, 0o700)
	} else {
		err = os.WriteFile(target, nil, 0o600)
	}
	if err == nil {
		err = unix.Mount(fmt.Sprintf("/proc/self/fd/%d", src.Fd()), target, "", unix.MS_BIND|unix.MS_REC, "")
		if errors.Is(err, unix.EPERM) {
			err = errors.New("a relative volume is bind-mounted by the client first, which needs root")
		}
	}
	if err != nil {
		stagedVolumes{dir}.Close()
		return "", err
	}
	return dir, nil
}

// openVolumeBeneath opens rel (relative to root, lexically inside it) as
// an O_PATH fd, creating missing directories the way Docker would, every
// step relative to an fd that is already inside root. Only a directory or
// a regular file is accepted: a device node or FIFO planted by a task is
// refused, and so is a symlink left at the end of a walk.
func openVolumeBeneath(root, rel string, open beneathOpener) (*os.File, error) {
	rel, err := cleanBeneath(rel)
	if err != nil {
		return nil, err
	}
	rootDir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer rootDir.Close()
	rootfd := int(rootDir.Fd())
	fd, err := open(rootfd, rel)
	if errors.Is(err, unix.ENOENT) {
		if err = mkdirAllBeneath(rootfd, rel, open); err == nil {
			fd, err = open(rootfd, rel)
		}
	}
	switch {
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return nil, errEscapesAllocDir
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return checkVolumeType(os.NewFile(uintptr(fd), filepath.Join(root, rel)))
}

// cleanBeneath makes rel a clean relative path that names root or
// something below it, lexically: ".." is settled here, before any link
// is looked at, and one that climbs out of root is refused.
func cleanBeneath(rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", errEscapesAllocDir
	}
	rel = filepath.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", errEscapesAllocDir
	}
	return rel, nil
}

func checkVolumeType(f *os.File) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR, unix.S_IFREG:
		return f, nil
	case unix.S_IFLNK:
		f.Close()
		return nil, errEscapesAllocDir
	}
	f.Close()
	return nil, errors.New("the host path is neither a directory nor a regular file")
}

// mkdirAllBeneath creates each missing directory of rel with mkdirat on
// its parent's fd, opened beneath root. mkdirat never follows a link in
// the last component, so a name a task turned into a symlink meanwhile
// is left alone (EEXIST) and the open that follows refuses it.
func mkdirAllBeneath(rootfd int, rel string, open beneathOpener) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		parent := "."
		if i > 0 {
			parent = strings.Join(parts[:i], "/")
		}
		pfd, err := open(rootfd, parent)
		if err != nil {
			return err
		}
		err = unix.Mkdirat(pfd, parts[i], 0o755)
		unix.Close(pfd)
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return err
		}
	}
	return nil
}

// beneathOpener opens rel below dirfd as O_PATH without leaving dirfd.
type beneathOpener func(dirfd int, rel string) (int, error)

// openat2PathBeneath resolves in the kernel: a symlink or ".." that leads
// out of dirfd fails with EXDEV, a /proc magic link with ELOOP. Symlinks
// that stay inside are followed, as Docker would. A kernel without
// openat2 (or a seccomp filter refusing it) gets the stricter walk.
func openat2PathBeneath(dirfd int, rel string) (int, error) {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return walkPathNoSymlinks(dirfd, rel)
	}
	return fd, err
}

// walkPathNoSymlinks opens rel one component at a time with O_NOFOLLOW:
// a symlink in the middle fails (ENOTDIR or ELOOP); one at the end is
// opened as the link itself, which checkVolumeType refuses.
func walkPathNoSymlinks(dirfd int, rel string) (int, error) {
	cur, err := unix.Openat(dirfd, ".", unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
	if err != nil || rel == "." {
		return cur, err
	}
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		flags := unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(cur, name, flags, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}
