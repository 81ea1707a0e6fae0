package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Archive formats artifacts are unpacked from.
const (
	FormatTar    = "tar"
	FormatTarGz  = "tar.gz"
	FormatTarBz2 = "tar.bz2"
	FormatZip    = "zip"
)

// formatOf maps a file name's extension to its archive format ("" for
// none), with the same extensions go-getter knows for these formats.
func formatOf(name string) string {
	for _, s := range []struct{ ext, format string }{
		{".tar.gz", FormatTarGz}, {".tgz", FormatTarGz}, {".tar.bz2", FormatTarBz2}, {".tbz2", FormatTarBz2},
		{".tar", FormatTar}, {".zip", FormatZip},
	} {
		if strings.HasSuffix(name, s.ext) {
			return s.format
		}
	}
	return ""
}

// unpack extracts the archive at file into dest.
func unpack(file, format, dest string) error {
	u := &unpacker{dest: dest, budget: artifactMaxUnpacked}
	if format == FormatZip {
		return u.zip(file)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	switch format {
	case FormatTarGz:
		gz, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer gz.Close()
		r = gz
	case FormatTarBz2:
		r = bzip2.NewReader(f)
	}
	return u.tar(r)
}

// unpacker writes archive entries below dest. Archives come from anywhere:
// an entry that would land outside dest (zip-slip), a write through a
// symlink, a link pointing out of dest, or more than budget bytes in all
// fail the whole artifact.
type unpacker struct {
	dest   string
	budget int64
}

func (u *unpacker) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		// An insecure name still comes with its header; target refuses it
		// with a clearer message.
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = u.dir(h.Name)
		case tar.TypeReg:
			err = u.file(h.Name, h.FileInfo().Mode(), tr)
		case tar.TypeSymlink:
			err = u.symlink(h.Name, h.Linkname)
		case tar.TypeXGlobalHeader:
		default:
			err = fmt.Errorf("archive entry %q: unsupported entry type %q", h.Name, h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

func (u *unpacker) zip(file string) error {
	zr, err := zip.OpenReader(file)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if err := u.zipEntry(f); err != nil {
			return err
		}
	}
	return nil
}

func (u *unpacker) zipEntry(f *zip.File) error {
	mode := f.Mode()
	if mode.IsDir() {
		return u.dir(f.Name)
	}
	if mode&fs.ModeType != 0 && mode&fs.ModeSymlink == 0 {
		return fmt.Errorf("archive entry %q: unsupported entry type %v", f.Name, mode.Type())
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if mode&fs.ModeSymlink != 0 {
		link, err := io.ReadAll(io.LimitReader(rc, 4096))
		if err != nil {
			return err
		}
		return u.symlink(f.Name, string(link))
	}
	return u.file(f.Name, mode, rc)
}

// target is where entry name goes, refused when outside dest or below a
// symlink (an earlier entry may have been one).
func (u *unpacker) target(name string) (string, error) {
	p := filepath.Join(u.dest, filepath.FromSlash(name))
	if !within(u.dest, p) {
		return "", fmt.Errorf("archive entry %q escapes the destination", name)
	}
	if err := noSymlinks(u.dest, filepath.Dir(p)); err != nil {
		return "", fmt.Errorf("archive entry %q: %w", name, err)
	}
	return p, nil
}

func (u *unpacker) dir(name string) error {
	p, err := u.target(name)
	if err != nil {
		return err
	}
	return os.MkdirAll(p, 0o755)
}

func (u *unpacker) file(name string, mode fs.FileMode, r io.Reader) error {
	p, err := u.target(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := removeNonDir(p); err != nil {
		return err
	}
	perm := mode.Perm() // never setuid or setgid bits from an archive
	if perm == 0 {
		perm = 0o644
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, u.budget+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	u.budget -= n
	if err == nil && u.budget < 0 {
		err = fmt.Errorf("archive unpacks to more than %d bytes", artifactMaxUnpacked)
	}
	return err
}

// symlink creates a relative link that stays inside dest.
func (u *unpacker) symlink(name, link string) error {
	p, err := u.target(name)
	if err != nil {
		return err
	}
	if filepath.IsAbs(link) || !within(u.dest, filepath.Join(filepath.Dir(p), link)) {
		return fmt.Errorf("archive entry %q links outside the destination (%q)", name, link)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := removeNonDir(p); err != nil {
		return err
	}
	return os.Symlink(link, p)
}
