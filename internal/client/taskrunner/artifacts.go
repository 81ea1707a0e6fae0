package taskrunner

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Artifact getter modes (the artifact block's `mode`).
const (
	ArtifactModeAny  = "any"
	ArtifactModeFile = "file"
	ArtifactModeDir  = "dir"
)

// DefaultArtifactDest is where an artifact goes without a destination.
const DefaultArtifactDest = "local/"

// Limits of one artifact. A job file can point at anything, so the client
// bounds what it stores for it; variables so tests can lower them.
var (
	artifactMaxSize     int64 = 1 << 30 // bytes downloaded or copied
	artifactMaxUnpacked int64 = 4 << 30 // bytes an archive may unpack to
)

// artifactHTTP has an overall deadline (a stalled server must not hold a
// task in pending forever) and a shorter one for the response headers.
var artifactHTTP = &http.Client{
	Timeout: 30 * time.Minute,
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: time.Minute,
	},
}

// artifact is one artifact block, interpolated and checked, ready to fetch.
// This is a small subset of go-getter: http(s) URLs and local files or
// directories, optional checksum, unpacking of tar, tar.gz, tar.bz2, zip.
type artifact struct {
	url     *url.URL // http(s) source; nil for a local one
	local   string   // absolute local source
	mode    string
	archive string // "": by the source's extension; "false": never; else a format
	dest    string // absolute, inside the task dir

	newHash func() hash.Hash // nil without a checksum
	sum     []byte
}

// fetchArtifacts fetches each artifact in turn into taskDir; the error
// names the artifact as written in the job.
func fetchArtifacts(ctx context.Context, taskDir string, arts []*structs.TaskArtifact, ip *Interpolator, allowHost bool) error {
	for _, a := range arts {
		art, err := parseArtifact(taskDir, a, ip)
		if err == nil {
			err = art.checkLocal(taskDir, allowHost)
		}
		if err == nil {
			err = art.fetch(ctx, taskDir)
		}
		if err != nil {
			return fmt.Errorf("failed to download artifact %q: %w", a.GetterSource, err)
		}
	}
	return nil
}

// parseArtifact interpolates the block (source, options, destination, as
// Nomad does) and validates it before anything is downloaded.
func parseArtifact(taskDir string, a *structs.TaskArtifact, ip *Interpolator) (*artifact, error) {
	art := &artifact{mode: a.GetterMode}
	switch art.mode {
	case "":
		art.mode = ArtifactModeAny
	case ArtifactModeAny, ArtifactModeFile, ArtifactModeDir:
	default:
		return nil, fmt.Errorf("unknown mode %q (want any, file or dir)", a.GetterMode)
	}
	opts := make(map[string]string, len(a.GetterOptions))
	for k, v := range a.GetterOptions {
		opts[k] = ip.String(v)
	}
	checksum, err := art.setSource(ip.String(a.GetterSource), opts)
	if err != nil {
		return nil, err
	}
	if checksum != "" {
		if art.newHash, art.sum, err = parseChecksum(checksum); err != nil {
			return nil, err
		}
	}
	rel := ip.String(a.RelativeDest)
	if rel == "" {
		rel = DefaultArtifactDest
	}
	if art.dest, err = sandboxJoin(taskDir, rel); err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	return art, nil
}

// setSource parses the source and takes the `checksum` and `archive`
// options out of options and (for URLs) the query string, where go-getter
// also reads them. Other options stay in an http URL's query, as go-getter
// sends them to the server. It returns the checksum option.
func (a *artifact) setSource(src string, opts map[string]string) (string, error) {
	if getter, _, ok := strings.Cut(src, "::"); ok && !strings.ContainsAny(getter, "/:") {
		return "", fmt.Errorf("getter %q is not supported: sources are http(s) URLs or local paths", getter)
	}
	if filepath.IsAbs(src) {
		a.local = filepath.Clean(src)
		a.archive = opts["archive"]
		return opts["checksum"], nil
	}
	u, err := url.Parse(src)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "http", "https":
		a.url = u
	case "file":
		if (u.Host != "" && u.Host != "localhost") || !path.IsAbs(u.Path) {
			return "", fmt.Errorf("file URL %q must hold an absolute local path", src)
		}
		a.local = filepath.Clean(filepath.FromSlash(u.Path))
	default:
		return "", fmt.Errorf("unsupported source %q: sources are http(s) URLs or absolute local paths", src)
	}
	q := u.Query()
	for k, v := range opts {
		q.Set(k, v)
	}
	checksum := q.Get("checksum")
	a.archive = q.Get("archive")
	q.Del("checksum")
	q.Del("archive")
	// Re-encode only when something changed, so a signed URL stays as is.
	if len(opts) > 0 || u.Query().Has("checksum") || u.Query().Has("archive") {
		u.RawQuery = q.Encode()
	}
	return checksum, nil
}

// parseChecksum reads "type:hex"; without a type it is guessed from the
// length, as go-getter does.
func parseChecksum(s string) (func() hash.Hash, []byte, error) {
	typ, hexSum, ok := strings.Cut(s, ":")
	if !ok {
		typ, hexSum = map[int]string{32: "md5", 40: "sha1", 64: "sha256", 128: "sha512"}[len(s)], s
	}
	hashes := map[string]func() hash.Hash{"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New}
	newHash := hashes[typ]
	if newHash == nil {
		return nil, nil, fmt.Errorf("unsupported checksum %q (want md5, sha1, sha256 or sha512)", s)
	}
	sum, err := hex.DecodeString(hexSum)
	if err != nil || len(sum) != newHash().Size() {
		return nil, nil, fmt.Errorf("invalid %s checksum %q", typ, hexSum)
	}
	return newHash, sum, nil
}

// checkLocal refuses a local source outside the alloc dir (the task dir's
// parent) unless host sources are allowed. Symlinks are resolved first, so
// a link inside the alloc dir cannot point out of it.
func (a *artifact) checkLocal(taskDir string, allowHost bool) error {
	if a.local == "" || allowHost {
		return nil
	}
	real, err := filepath.EvalSymlinks(a.local)
	if err != nil {
		return err
	}
	root, err := filepath.EvalSymlinks(filepath.Dir(taskDir))
	if err != nil {
		return err
	}
	if !within(root, real) {
		return fmt.Errorf("local source %s is outside the allocation directory; "+
			"set client option %q to allow host paths", a.local, OptionAllowHostArtifacts)
	}
	return nil
}

// OptionAllowHostArtifacts is the client option that lets artifact
// sources be local paths anywhere on the host.
const OptionAllowHostArtifacts = "artifact.allow_host_sources"

// fetch downloads (or copies) the source next to its destination,
// verifies it, then unpacks or moves it into place.
func (a *artifact) fetch(ctx context.Context, taskDir string) error {
	if a.local != "" {
		fi, err := os.Stat(a.local)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return a.copyDir()
		}
	}
	tmp, err := a.download(ctx, taskDir)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once moved into place
	return a.place(tmp)
}

// download streams the source into a temporary file in taskDir (the same
// filesystem as the destination, so placing it is a rename).
func (a *artifact) download(ctx context.Context, taskDir string) (string, error) {
	f, err := os.CreateTemp(taskDir, ".artifact-*")
	if err != nil {
		return "", err
	}
	err = a.copyTo(ctx, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func (a *artifact) copyTo(ctx context.Context, w io.Writer) error {
	var h hash.Hash
	if a.newHash != nil {
		h = a.newHash()
		w = io.MultiWriter(w, h)
	}
	r, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := io.Copy(w, io.LimitReader(r, artifactMaxSize+1))
	if err != nil {
		return err
	}
	if n > artifactMaxSize {
		return fmt.Errorf("artifact is larger than %d bytes", artifactMaxSize)
	}
	if h != nil && !bytes.Equal(h.Sum(nil), a.sum) {
		return fmt.Errorf("checksum mismatch: expected %x, got %x", a.sum, h.Sum(nil))
	}
	return nil
}

func (a *artifact) open(ctx context.Context) (io.ReadCloser, error) {
	if a.url == nil {
		return os.Open(a.local)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := artifactHTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("bad response code: %d", resp.StatusCode)
	}
	if resp.ContentLength > artifactMaxSize {
		resp.Body.Close()
		return nil, fmt.Errorf("artifact is larger than %d bytes", artifactMaxSize)
	}
	return resp.Body, nil
}

// place puts a verified download where the mode says: mode file writes it
// as the destination file; otherwise the destination is a directory an
// archive is unpacked into, or a plain file is put in under its own name.
func (a *artifact) place(tmp string) error {
	format, err := a.archiveFormat()
	if err != nil {
		return err
	}
	switch {
	case a.mode == ArtifactModeFile:
		return moveFile(tmp, a.dest)
	case format != "":
		if err := os.MkdirAll(a.dest, 0o755); err != nil {
			return err
		}
		return unpack(tmp, format, a.dest)
	case a.mode == ArtifactModeDir:
		return errors.New(`mode "dir" needs an archive or a directory`)
	}
	name := a.baseName()
	if name == "" || name == "." || name == ".." || name == "/" {
		return errors.New(`cannot tell a file name from the source; use mode "file" with a destination file`)
	}
	return moveFile(tmp, filepath.Join(a.dest, name))
}

// archiveFormat is the `archive` option's format, or the one the source's
// name ends with; "" means the download is not unpacked.
func (a *artifact) archiveFormat() (string, error) {
	switch a.archive {
	case "false":
		return "", nil
	case "", "true":
		return formatOf(a.baseName()), nil
	}
	if f := formatOf("x." + a.archive); f != "" {
		return f, nil
	}
	return "", fmt.Errorf("unsupported archive format %q (want tar, tar.gz, tgz, tar.bz2, tbz2 or zip)", a.archive)
}

func (a *artifact) baseName() string {
	if a.url != nil {
		return path.Base(a.url.Path)
	}
	return filepath.Base(a.local)
}

// moveFile renames src to dst (replacing a symlink at dst rather than
// following it) with the mode a downloaded file gets.
func moveFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(src, 0o644); err != nil {
		return err
	}
	return os.Rename(src, dst)
}

// copyDir copies a local directory source into the destination. Only
// directories and regular files are copied: a symlink could lead the
// client to copy files the job should not see.
func (a *artifact) copyDir() error {
	if a.mode == ArtifactModeFile {
		return errors.New(`mode "file" needs a file, the source is a directory`)
	}
	if a.newHash != nil {
		return errors.New("a checksum needs a file, the source is a directory")
	}
	root, err := filepath.EvalSymlinks(a.local) // the walk does not follow a symlinked root
	if err != nil {
		return err
	}
	budget := artifactMaxSize
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(a.dest, rel)
		if err := noSymlinks(a.dest, dst); err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			n, err := copyFile(p, dst, budget)
			budget -= n
			return err
		}
		return fmt.Errorf("%s: only directories and regular files are copied", p)
	})
}

// copyFile copies at most budget bytes of src to a new file dst.
func copyFile(src, dst string, budget int64) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return 0, err
	}
	if err := removeNonDir(dst); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(in, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > budget {
		err = fmt.Errorf("artifact is larger than %d bytes", artifactMaxSize)
	}
	return n, err
}

// removeNonDir removes what is at p unless it is a directory, so a new
// file is created there instead of writing through an old symlink.
func removeNonDir(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || fi.IsDir() {
		return err
	}
	return os.Remove(p)
}
