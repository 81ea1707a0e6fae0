package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Errors of openBeneath.
var (
	errOutsideRoot = errors.New("leads outside the allocation directory")
	errNotRegular  = errors.New("is neither a file nor a directory")
)

// openBeneath opens rel (already lexically inside root) relative to root
// in one step that the kernel resolves: openat2 with RESOLVE_BENEATH
// refuses any symlink or ".." that leads out of root, and
// RESOLVE_NO_MAGICLINKS the /proc/*/fd kind. Checking a path and then
// opening it would race a task that swaps a symlink in between; here the
// check and the open are the same operation, and callers use the
// returned file, never the path again. Without openat2 (Linux < 5.6) a
// component walk with O_NOFOLLOW refuses every symlink instead.
//
// O_NONBLOCK keeps a FIFO planted by a task from hanging the agent; only
// files and directories are returned.
func openBeneath(root, rel string) (*os.File, error) {
	return openUnder(root, rel, openat2Beneath)
}

// opener opens rel below dirfd without leaving it.
type opener func(dirfd int, rel string, flags int) (int, error)

func openat2Beneath(dirfd int, rel string, flags int) (int, error) {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	// ENOSYS: an old kernel; EPERM: a seccomp profile that blocks openat2.
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return walkNoFollow(dirfd, rel, flags)
	}
	return fd, err
}

func openUnder(root, rel string, open opener) (*os.File, error) {
	rootDir, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer rootDir.Close()
	rel = strings.TrimPrefix(filepath.Clean("/"+rel), "/")
	if rel == "" {
		rel = "."
	}
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY
	fd, err := open(int(rootDir.Fd()), rel, flags)
	switch {
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return nil, errOutsideRoot
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, rel))
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// walkNoFollow opens rel one component at a time, each with O_NOFOLLOW:
// any symlink on the way fails (ELOOP, or ENOTDIR where a directory was
// expected).
func walkNoFollow(dirfd int, rel string, flags int) (int, error) {
	cur, err := unix.Dup(dirfd)
	if err != nil {
		return -1, err
	}
	if rel == "." {
		return cur, nil
	}
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		f := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_DIRECTORY
		if i == len(parts)-1 {
			f = flags | unix.O_NOFOLLOW
		}
		next, err := unix.Openat(cur, name, f, 0)
		unix.Close(cur)
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}
