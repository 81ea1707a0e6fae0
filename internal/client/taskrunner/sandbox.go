package taskrunner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Paths in artifact and template blocks come from job files, and archives
// come from anywhere, so every path the client writes to or reads from on
// a task's behalf is checked against its sandbox (the task dir, or an
// artifact's destination while unpacking).

// sandboxJoin joins rel to root as Nomad does (an absolute rel is still
// relative to root) and refuses a result outside root. It also refuses a
// path that goes through an existing symlink below root: the client writes
// there, and a symlink left by the task or an archive could point anywhere.
func sandboxJoin(root, rel string) (string, error) {
	p := filepath.Join(root, rel)
	if !within(root, p) {
		return "", fmt.Errorf("path %q escapes the task directory", rel)
	}
	if err := noSymlinks(root, p); err != nil {
		return "", err
	}
	return p, nil
}

// within reports whether p is root or below it (both clean).
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// noSymlinks fails when a component of p below root exists and is a
// symlink. Components that do not exist yet are fine: the client creates
// them as real directories.
func noSymlinks(root, p string) error {
	r, err := filepath.Rel(root, p)
	if err != nil || r == "." {
		return err
	}
	cur := root
	for _, part := range strings.Split(r, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("path %q goes through a symlink", r)
		}
	}
	return nil
}

// sandboxRead resolves rel for reading: symlinks may be followed, but the
// file they lead to must still be inside root.
func sandboxRead(root, rel string) (string, error) {
	escapes := fmt.Errorf("path %q escapes the task directory", rel)
	if !within(root, filepath.Join(root, rel)) {
		return "", escapes
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(realRoot, rel))
	if err != nil {
		return "", err
	}
	if !within(realRoot, p) {
		return "", escapes
	}
	return p, nil
}

// writeFileAtomic writes data to p through a temporary file renamed into
// place: readers never see half a file, and an existing symlink at p is
// replaced rather than followed.
func writeFileAtomic(p string, data []byte, perm fs.FileMode) error {
	return writeFileAtomicOwned(p, data, perm, -1, -1)
}

// writeFileAtomicOwned is writeFileAtomic giving the file to uid and gid
// (-1 leaves either as the client's) before it appears.
func writeFileAtomicOwned(p string, data []byte, perm fs.FileMode, uid, gid int) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename this is a no-op
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if uid >= 0 || gid >= 0 {
		if err := f.Chown(uid, gid); err != nil {
			f.Close()
			return fmt.Errorf("set owner %d:%d: %w", uid, gid, err)
		}
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// fileMatches reports whether the file at p has mode perm and, where
// uid or gid is not -1, that owner.
func fileMatches(p string, perm fs.FileMode, uid, gid int) bool {
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != perm.Perm() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return uid < 0 && gid < 0
	}
	return (uid < 0 || int(st.Uid) == uid) && (gid < 0 || int(st.Gid) == gid)
}
