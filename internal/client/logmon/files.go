package logmon

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Stream names, as the log endpoint's type parameter spells them.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// LogFile is one rotated log file.
type LogFile struct {
	Name  string // base name, e.g. web.stdout.3
	Path  string
	Index int
	Size  int64
}

// Base is the prefix of a task's rotated files for a stream: "<task>.<stream>".
func Base(task, stream string) string { return task + "." + stream }

// LivePath is the file the driver writes a task's stream to.
func LivePath(logDir, task, stream string) string {
	return filepath.Join(logDir, "."+Base(task, stream)+".live")
}

// List returns the rotated files <dir>/<base>.N in index order (oldest
// first); the last one is the file being written. A missing dir is empty.
func List(dir, base string) ([]LogFile, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []LogFile
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || e.IsDir() {
			continue
		}
		idx, err := strconv.Atoi(rest)
		if err != nil || idx < 0 {
			continue
		}
		lf := LogFile{Name: e.Name(), Path: filepath.Join(dir, e.Name()), Index: idx}
		if fi, err := e.Info(); err == nil {
			lf.Size = fi.Size()
		}
		out = append(out, lf)
	}
	slices.SortFunc(out, func(a, b LogFile) int { return a.Index - b.Index })
	return out, nil
}
