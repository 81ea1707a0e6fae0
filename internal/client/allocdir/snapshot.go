package allocdir

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Snapshot and Unpack carry an alloc's migratable data (its alloc/data
// and each task's local/, what ephemeral_disk { migrate = true } keeps)
// from the node of a previous alloc to the node of its replacement, as a
// tar stream: Nomad's GET /v1/client/allocation/:id/snapshot. Paths in
// the stream are relative to the alloc dir ("alloc/data/x", "web/local/y").

// Snapshot writes the tar of the alloc's alloc/data and the named tasks'
// local/ dirs: directories, regular files and symlinks (as links, never
// followed); other entries (sockets, devices, fifos) are left out. Files
// are read through an os.Root at the alloc dir, so a task that swaps a
// file for a symlink while the snapshot runs cannot make the client read
// anything outside its alloc dir.
func (d *AllocDir) Snapshot(w io.Writer, tasks []string) error {
	root, err := os.OpenRoot(d.Root)
	if err != nil {
		return err
	}
	defer root.Close()
	tw := tar.NewWriter(w)
	dirs := []string{SharedDirName + "/" + DataDirName}
	for _, t := range tasks {
		if validTaskName(t) {
			dirs = append(dirs, t+"/"+LocalDirName)
		}
	}
	for _, top := range dirs {
		if _, err := root.Lstat(top); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		err := fs.WalkDir(root.FS(), top, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return addEntry(tw, root, p, de)
		})
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", top, err)
		}
	}
	return tw.Close()
}

func addEntry(tw *tar.Writer, root *os.Root, p string, de fs.DirEntry) error {
	info, err := root.Lstat(p)
	if err != nil {
		return err
	}
	link := ""
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if link, err = root.Readlink(p); err != nil {
			return err
		}
	case info.IsDir(), info.Mode().IsRegular():
	default:
		return nil // sockets, devices, fifos: not data
	}
	hdr, err := tar.FileInfoHeader(info, link)
	if err != nil {
		return err
	}
	hdr.Name = p
	if info.IsDir() {
		hdr.Name += "/"
	}
	hdr.Uname, hdr.Gname = "", ""
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	f, err := root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	// The file may have grown since Lstat: copy what the header promised.
	_, err = io.CopyN(tw, f, hdr.Size)
	return err
}

// Unpack extracts a Snapshot stream into dest (an alloc dir's root, or a
// staging dir laid out like one). It trusts nothing in the stream: an
// entry must lie under alloc/data or under the local/ of one of tasks,
// with a clean relative name (no "..", no absolute path); a symlink's
// target must be relative and never climb ("..") nor be absolute, so no
// link leads out of dest; every write goes through an os.Root at dest;
// file modes keep their permission bits only (no setuid, setgid or
// sticky); the regular files' sizes must add up to at most limit bytes
// (0: no limit); hard links and special files are skipped. It stops at
// the first bad entry, leaving what it wrote so far (the caller discards
// dest).
func Unpack(r io.Reader, dest string, tasks []string, limit int64) error {
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read snapshot: %w", err)
		}
		name, err := snapshotName(hdr.Name, tasks)
		if err != nil {
			return err
		}
		perm := fs.FileMode(hdr.Mode).Perm()
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o700); err != nil {
				return err
			}
			if err := root.Chmod(name, perm|0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if hdr.Size < 0 || limit > 0 && hdr.Size > limit-total {
				return fmt.Errorf("snapshot entry %q: the data exceeds the ephemeral disk's %d bytes", hdr.Name, limit)
			}
			total += hdr.Size
			if err := writeFile(root, name, perm, tr); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := checkLinkTarget(hdr.Linkname); err != nil {
				return fmt.Errorf("snapshot entry %q: %w", hdr.Name, err)
			}
			if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
				return err
			}
			if err := root.Symlink(hdr.Linkname, name); err != nil {
				return err
			}
		}
	}
}

func writeFile(root *os.Root, name string, perm fs.FileMode, r io.Reader) error {
	if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return err
	}
	// A name already there (a symlink an earlier entry made, say) is
	// replaced, never written through.
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// snapshotName checks an entry's name and returns it cleaned.
func snapshotName(name string, tasks []string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("snapshot entry %q: %s", name, why)
	}
	trimmed := strings.TrimSuffix(name, "/")
	switch {
	case trimmed == "" || strings.ContainsAny(name, "\\\x00"):
		return bad("not a valid name")
	case path.IsAbs(name) || filepath.IsAbs(name):
		return bad("absolute path")
	case path.Clean(trimmed) != trimmed:
		return bad("not a clean path")
	}
	parts := strings.Split(trimmed, "/")
	if slices.Contains(parts, "..") {
		return bad(`".." in the path`)
	}
	if len(parts) < 2 {
		return bad("outside alloc/data and the tasks' local/")
	}
	switch {
	case parts[0] == SharedDirName && parts[1] == DataDirName:
	case parts[0] != SharedDirName && validTaskName(parts[0]) && slices.Contains(tasks, parts[0]) && parts[1] == LocalDirName:
	default:
		return bad("outside alloc/data and the tasks' local/")
	}
	return trimmed, nil
}

// checkLinkTarget allows only targets that stay below the link's own
// directory: relative, with no ".." step. Every link then resolves
// within the tree, whatever other links it passes through.
func checkLinkTarget(target string) error {
	switch {
	case target == "" || strings.ContainsAny(target, "\\\x00"):
		return errors.New("symlink with an invalid target")
	case path.IsAbs(target) || filepath.IsAbs(target):
		return fmt.Errorf("symlink to the absolute path %q", target)
	case slices.Contains(strings.Split(target, "/"), ".."):
		return fmt.Errorf("symlink to %q climbs out of its directory", target)
	}
	return nil
}

func validTaskName(t string) bool {
	return t != "" && !strings.ContainsAny(t, `/\`) && t != "." && t != ".." && t != SharedDirName
}
