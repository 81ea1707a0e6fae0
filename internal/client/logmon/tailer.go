package logmon

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultPollInterval is how often a Tailer looks for new output.
const DefaultPollInterval = 250 * time.Millisecond

// Fallocate modes (linux/falloc.h).
const (
	fallocKeepSize  = 0x01
	fallocPunchHole = 0x02
	holeBlock       = 4096
)

// Tailer copies what a driver appends to a live file into a Rotator (see
// the package doc). Polling runs on the wall clock on purpose: it moves
// bytes, it decides nothing, so tests flush explicitly instead of faking
// time.
type Tailer struct {
	live, offsetPath string
	out              *Rotator

	mu       sync.Mutex
	f        *os.File
	offset   int64
	punched  int64
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
	detached atomic.Bool // stopped without a last copy (Detach)
}

// StartTailer creates the live file if needed and starts copying from the
// saved offset. interval <= 0 uses DefaultPollInterval.
func StartTailer(live string, out *Rotator, interval time.Duration) (*Tailer, error) {
	f, err := os.OpenFile(live, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	t := &Tailer{live: live, offsetPath: live + ".offset", out: out, f: f, stop: make(chan struct{}), done: make(chan struct{})}
	t.offset = t.loadOffset()
	t.punched = t.offset / holeBlock * holeBlock
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	go t.loop(interval)
	return t, nil
}

// loadOffset reads the saved offset; anything unreadable, or beyond the
// file's end (the file was replaced), starts from 0.
func (t *Tailer) loadOffset() int64 {
	raw, err := os.ReadFile(t.offsetPath)
	if err != nil {
		return 0
	}
	off, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	fi, serr := t.f.Stat()
	if err != nil || serr != nil || off < 0 || off > fi.Size() {
		return 0
	}
	return off
}

func (t *Tailer) loop(interval time.Duration) {
	defer close(t.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			_ = t.Flush()
		case <-t.stop:
			if !t.detached.Load() {
				_ = t.Flush()
			}
			return
		}
	}
}

// Flush copies everything written so far.
func (t *Tailer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	// Most polls find nothing new: a stat is all they cost, and a copy
	// reuses a pooled buffer. A client with tens of thousands of tasks
	// polls hundreds of thousands of times a second, and a fresh 32 KiB
	// buffer per poll kept the collector busier than everything else.
	if fi, err := t.f.Stat(); err == nil && fi.Size() <= t.offset {
		return nil
	}
	start := t.offset
	buf := copyBuffers.Get().(*[]byte)
	n, err := io.CopyBuffer(t.out, io.NewSectionReader(t.f, t.offset, 1<<62), *buf)
	copyBuffers.Put(buf)
	t.offset += n
	if t.offset == start {
		return err
	}
	t.saveOffset()
	t.punch()
	return err
}

// saveOffset writes the offset through a rename so a crash leaves the old
// or the new value, never a torn one.
func (t *Tailer) saveOffset() {
	tmp := t.offsetPath + ".tmp"
	if os.WriteFile(tmp, []byte(strconv.FormatInt(t.offset, 10)), 0o644) == nil {
		_ = os.Rename(tmp, t.offsetPath)
	}
}

// punch frees the disk blocks already copied. Filesystems without hole
// punching keep the bytes; the live file then just grows.
func (t *Tailer) punch() {
	end := t.offset / holeBlock * holeBlock
	if end <= t.punched {
		return
	}
	err := syscall.Fallocate(int(t.f.Fd()), fallocPunchHole|fallocKeepSize, t.punched, end-t.punched)
	if err == nil || errors.Is(err, syscall.EOPNOTSUPP) {
		t.punched = end
	}
}

// Stop copies what is left and stops polling. The live file stays so a
// task that outlives this client keeps writing into it.
func (t *Tailer) Stop() {
	t.stopOnce.Do(func() { close(t.stop) })
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// Detach stops polling without copying what is left: the task outlives
// this client, and the next one resumes from the saved offset, so a
// client stopping thousands of tasks leaves the copying to it.
func (t *Tailer) Detach() {
	t.detached.Store(true)
	t.Stop()
}

// copyBuffers holds the buffers Flush copies through.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
