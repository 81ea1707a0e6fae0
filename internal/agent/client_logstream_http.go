package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/logmon"
)

// logChunk is the most data one frame carries.
const logChunk = 64 << 10

// finishGrace is how long a followed stream keeps reading after the alloc
// finished: the client copies a task's last output into the rotated files
// shortly after the task exits, and that output must not be cut off.
const finishGrace = time.Second

// logStreamer reads one task stream across its rotated files (oldest
// first; the last is being written) and writes what it reads to out.
type logStreamer struct {
	list      func() ([]logmon.LogFile, error) // the files, re-read on each poll
	finished  func() bool                      // the alloc is done: stop following
	out       *frameWriter
	follow    bool
	poll      time.Duration
	heartbeat time.Duration

	cur       logmon.LogFile
	f         *os.File // nil until a file exists
	off       int64
	lastWrite time.Time
	name      string // the frames' File; empty: the log file's path
}

// run streams from the position origin/offset names until the files end
// (follow=false), or until ctx ends or the alloc has finished.
func (s *logStreamer) run(ctx context.Context, origin string, offset int64) error {
	if err := s.out.begin(); err != nil {
		return err
	}
	s.lastWrite = time.Now()
	defer s.closeFile()
	files, err := s.list()
	if err != nil {
		return err
	}
	if len(files) > 0 {
		i, off := seekLog(files, origin, offset)
		if err := s.open(files[i], off); err != nil {
			return err
		}
	}
	return s.loop(ctx)
}

// loop copies the open file to its end, moving to newer files, and with
// follow keeps polling until ctx ends or the alloc has finished.
func (s *logStreamer) loop(ctx context.Context) error {
	var doneAt time.Time
	for {
		if err := s.copyToEOF(); err != nil {
			return err
		}
		switched, err := s.advance()
		if err != nil {
			return err
		}
		if switched {
			continue
		}
		if !s.follow || s.finishedFor(&doneAt) {
			return nil
		}
		if err := s.wait(ctx); err != nil {
			return err
		}
	}
}

// seekLog turns origin and offset into a file and an offset inside it.
// "start" counts from the beginning of the oldest file, "end" back from
// the end of the newest, crossing file boundaries either way.
func seekLog(files []logmon.LogFile, origin string, offset int64) (int, int64) {
	if origin == "end" {
		i := len(files) - 1
		for i > 0 && offset > files[i].Size {
			offset -= files[i].Size
			i--
		}
		return i, max(files[i].Size-offset, 0)
	}
	i := 0
	for i < len(files)-1 && offset >= files[i].Size {
		offset -= files[i].Size
		i++
	}
	return i, min(offset, files[i].Size)
}

func (s *logStreamer) open(lf logmon.LogFile, off int64) error {
	f, err := os.Open(lf.Path)
	if err != nil {
		return err
	}
	s.closeFile()
	s.cur, s.f, s.off = lf, f, off
	return nil
}

func (s *logStreamer) closeFile() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// fileName is the frame's File: the path inside the alloc dir, as Nomad
// names it.
func (s *logStreamer) fileName() string {
	if s.name != "" {
		return s.name
	}
	return path.Join(allocdir.SharedDirName, allocdir.LogDirName, s.cur.Name)
}

// copyToEOF sends everything after the current offset. A file shorter
// than the offset was truncated: say so and start it over.
func (s *logStreamer) copyToEOF() error {
	if s.f == nil {
		return nil
	}
	if fi, err := s.f.Stat(); err == nil && fi.Size() < s.off {
		s.off = 0
		if err := s.out.event(s.fileName(), "file truncated"); err != nil {
			return err
		}
	}
	buf := make([]byte, logChunk)
	for {
		n, err := s.f.ReadAt(buf, s.off)
		if n > 0 {
			s.off += int64(n)
			if werr := s.out.data(s.fileName(), buf[:n], s.off); werr != nil {
				return werr
			}
			s.lastWrite = time.Now()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// advance moves to the next rotated file when one exists. The rotator
// only creates file N+1 after it finished writing N, so reading N to its
// end once more first loses nothing.
func (s *logStreamer) advance() (bool, error) {
	files, err := s.list()
	if err != nil {
		return false, err
	}
	for _, lf := range files {
		if s.f != nil && lf.Index <= s.cur.Index {
			continue
		}
		if err := s.copyToEOF(); err != nil {
			return false, err
		}
		if err := s.open(lf, 0); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // purged meanwhile: try the next one
			}
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// finishedFor reports whether the alloc has been finished for finishGrace
// (doneAt remembers when that was first seen).
func (s *logStreamer) finishedFor(doneAt *time.Time) bool {
	if doneAt.IsZero() {
		if s.finished() {
			*doneAt = time.Now()
		}
		return false
	}
	return time.Since(*doneAt) >= finishGrace
}

// wait sleeps one poll interval, sending a heartbeat frame when nothing
// was written for a heartbeat interval.
func (s *logStreamer) wait(ctx context.Context) error {
	t := time.NewTimer(s.poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	if time.Since(s.lastWrite) < s.heartbeat {
		return nil
	}
	s.lastWrite = time.Now()
	return s.out.beat()
}

// frameWriter writes Nomad's log framing (a stream of JSON StreamFrames)
// or, in plain mode, the raw bytes, flushing every write so followers see
// output as it comes.
type frameWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	enc   *json.Encoder
	plain bool
}

func newFrameWriter(w http.ResponseWriter, plain bool) *frameWriter {
	return &frameWriter{w: w, rc: http.NewResponseController(w), enc: json.NewEncoder(w), plain: plain}
}

// begin sends the headers at once: Nomad's client waits for them before
// it returns the frame channel, even when no output exists yet.
func (fw *frameWriter) begin() error {
	ct := "application/json"
	if fw.plain {
		ct = "text/plain; charset=utf-8"
	}
	fw.w.Header().Set("Content-Type", ct)
	fw.w.WriteHeader(http.StatusOK)
	return fw.flush()
}

func (fw *frameWriter) data(file string, p []byte, endOffset int64) error {
	if fw.plain {
		if _, err := fw.w.Write(p); err != nil {
			return err
		}
		return fw.flush()
	}
	return fw.frame(&api.StreamFrame{File: file, Data: p, Offset: endOffset})
}

func (fw *frameWriter) event(file, ev string) error {
	if fw.plain {
		return nil
	}
	return fw.frame(&api.StreamFrame{File: file, FileEvent: ev})
}

// beat sends an empty frame ({}), which clients skip; plain streams have
// no way to send one.
func (fw *frameWriter) beat() error {
	if fw.plain {
		return nil
	}
	return fw.frame(&api.StreamFrame{})
}

func (fw *frameWriter) frame(f *api.StreamFrame) error {
	if err := fw.enc.Encode(f); err != nil {
		return err
	}
	return fw.flush()
}

func (fw *frameWriter) flush() error {
	if err := fw.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
