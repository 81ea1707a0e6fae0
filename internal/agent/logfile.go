package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// defaultLogFileName is the file log_file names when it is a directory
// (Nomad writes nomad.log there).
const defaultLogFileName = "drover.log"

// logFile is log_file: an append-only file rotated when it would pass
// maxBytes or has been open maxAge. A rotated file is renamed
// name-<unix nanoseconds>.ext beside it, and only the newest maxFiles of
// those are kept (0: all), as Nomad does.
type logFile struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	maxAge   time.Duration
	maxFiles int
	now      func() time.Time

	f      *os.File
	size   int64
	opened time.Time
}

// openLogFile opens (creating) the log file: path, or path/drover.log
// when path is a directory or ends in a separator.
func openLogFile(path string, maxBytes int, maxAge time.Duration, maxFiles int, now func() time.Time) (*logFile, error) {
	if strings.HasSuffix(path, string(filepath.Separator)) {
		path = filepath.Join(path, defaultLogFileName)
	} else if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, defaultLogFileName)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("log_file: %w", err)
	}
	l := &logFile{path: path, maxBytes: int64(maxBytes), maxAge: maxAge, maxFiles: maxFiles, now: now}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *logFile) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("log_file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log_file: %w", err)
	}
	l.f, l.size, l.opened = f, fi.Size(), l.now()
	return nil
}

// Write appends p, rotating first when p would take the file past
// maxBytes (a file holds at least one write) or the file is maxAge old.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	full := l.maxBytes > 0 && l.size > 0 && l.size+int64(len(p)) > l.maxBytes
	old := l.maxAge > 0 && l.now().Sub(l.opened) >= l.maxAge
	if full || old {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *logFile) rotate() error {
	if err := l.f.Close(); err != nil {
		return err
	}
	l.f = nil
	ext := filepath.Ext(l.path)
	base := strings.TrimSuffix(l.path, ext)
	if err := os.Rename(l.path, fmt.Sprintf("%s-%d%s", base, l.now().UnixNano(), ext)); err != nil {
		return fmt.Errorf("log_file: rotate: %w", err)
	}
	if err := l.open(); err != nil {
		return err
	}
	return l.prune(base, ext)
}

// prune keeps the newest maxFiles rotated files.
func (l *logFile) prune(base, ext string) error {
	if l.maxFiles <= 0 {
		return nil
	}
	old, err := filepath.Glob(base + "-*" + ext)
	if err != nil {
		return err
	}
	sort.Strings(old) // same-width nanosecond stamps sort by time
	for len(old) > l.maxFiles {
		if err := os.Remove(old[0]); err != nil && !os.IsNotExist(err) {
			return err
		}
		old = old[1:]
	}
	return nil
}

// Close closes the file.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
