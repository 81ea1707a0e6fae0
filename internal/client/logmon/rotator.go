package logmon

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Rotator is an io.Writer over <dir>/<base>.N files: when the current file
// reaches maxBytes it moves on to N+1 and deletes files older than the
// newest maxFiles.
type Rotator struct {
	dir, base string
	maxFiles  int
	maxBytes  int64

	mu   sync.Mutex
	f    *os.File
	idx  int
	size int64
}

// NewRotator opens the newest existing file (a restarted client appends
// to it) or <base>.0. maxFiles below 1 is 1; maxBytes below 1 is 10 MiB.
func NewRotator(dir, base string, maxFiles int, maxBytes int64) (*Rotator, error) {
	if maxFiles < 1 {
		maxFiles = 1
	}
	if maxBytes < 1 {
		maxBytes = 10 << 20
	}
	r := &Rotator{dir: dir, base: base, maxFiles: maxFiles, maxBytes: maxBytes}
	files, err := List(dir, base)
	if err != nil {
		return nil, err
	}
	if n := len(files); n > 0 {
		r.idx = files[n-1].Index
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Rotator) path(idx int) string {
	return filepath.Join(r.dir, fmt.Sprintf("%s.%d", r.base, idx))
}

func (r *Rotator) open() error {
	f, err := os.OpenFile(r.path(r.idx), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write implements io.Writer, splitting p across files at maxBytes.
func (r *Rotator) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	written := 0
	for len(p) > 0 {
		if r.size >= r.maxBytes {
			if err := r.rotate(); err != nil {
				return written, err
			}
		}
		chunk := p
		if room := r.maxBytes - r.size; int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		n, err := r.f.Write(chunk)
		written += n
		r.size += int64(n)
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

func (r *Rotator) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	r.idx++
	if err := r.open(); err != nil {
		return err
	}
	r.purge()
	return nil
}

// purge deletes files beyond the newest maxFiles; a failure only costs
// disk space, so it is not reported.
func (r *Rotator) purge() {
	files, err := List(r.dir, r.base)
	if err != nil {
		return
	}
	for _, f := range files {
		if f.Index <= r.idx-r.maxFiles {
			_ = os.Remove(f.Path)
		}
	}
}

// Close closes the current file.
func (r *Rotator) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}
