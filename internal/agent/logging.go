package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"log/syslog"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
)

// LogOutputs are the agent's log destinations: Level is the level every
// one of them logs at (Reload changes it), and Close closes the log
// file and the syslog connection.
type LogOutputs struct {
	Level   *slog.LevelVar
	closers []io.Closer
}

// Close closes the outputs that need it.
func (o *LogOutputs) Close() error {
	var errs []error
	for _, c := range o.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// syslogDial connects to the local syslog daemon; tests point it at
// their own socket.
var syslogDial = func(priority syslog.Priority, tag string) (*syslog.Writer, error) {
	return syslog.New(priority, tag)
}

// NewLogger builds the agent's logger from the config: text, or JSON with
// log_json, to stderr; the same to log_file (rotated by log_rotate_bytes,
// log_rotate_duration, log_rotate_max_files) when set; to the local
// syslog (syslog_facility) with enable_syslog. log_include_location adds
// the source file and line. Every output logs at log_level, which the
// returned outputs' Level changes at run time.
func NewLogger(c *config.Config, stderr io.Writer) (*slog.Logger, *LogOutputs, error) {
	out := &LogOutputs{Level: new(slog.LevelVar)}
	out.Level.Set(c.SlogLevel())
	opts := &slog.HandlerOptions{Level: out.Level, AddSource: c.Logging.IncludeLocation}
	format := func(w io.Writer) slog.Handler {
		if c.Logging.JSON {
			return slog.NewJSONHandler(w, opts)
		}
		return slog.NewTextHandler(w, opts)
	}
	handlers := []slog.Handler{format(stderr)}
	if c.Logging.File != "" {
		f, err := openLogFile(c.Logging.File, c.Logging.RotateBytes, c.Logging.RotateDuration, c.Logging.RotateMaxFiles, time.Now)
		if err != nil {
			return nil, nil, err
		}
		out.closers = append(out.closers, f)
		handlers = append(handlers, format(f))
	}
	if c.Logging.EnableSyslog {
		w, err := syslogDial(c.Logging.SyslogFacilityPriority()|syslog.LOG_INFO, "drover")
		if err != nil {
			_ = out.Close()
			return nil, nil, errors.Join(errors.New("enable_syslog: cannot reach the syslog daemon"), err)
		}
		out.closers = append(out.closers, w)
		h := &syslogHandler{w: w, buf: &lockedBuffer{}}
		h.inner = slog.NewTextHandler(h.buf, &slog.HandlerOptions{Level: out.Level, AddSource: c.Logging.IncludeLocation,
			ReplaceAttr: dropTime})
		handlers = append(handlers, h)
	}
	if len(handlers) == 1 {
		return slog.New(handlers[0]), out, nil
	}
	return slog.New(fanout(handlers)), out, nil
}

// dropTime leaves the time out of syslog lines: syslog stamps them.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// fanout sends every record to each handler that is enabled for it.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}

// lockedBuffer is the buffer a syslogHandler formats one record into.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) { return l.b.Write(p) }

// syslogHandler formats a record as a text line and sends it to syslog at
// the record's severity.
type syslogHandler struct {
	w     *syslog.Writer
	buf   *lockedBuffer
	inner slog.Handler
}

func (h *syslogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *syslogHandler) Handle(ctx context.Context, r slog.Record) error {
	h.buf.mu.Lock()
	h.buf.b.Reset()
	err := h.inner.Handle(ctx, r)
	line := string(bytes.TrimSuffix(h.buf.b.Bytes(), []byte("\n")))
	h.buf.mu.Unlock()
	if err != nil {
		return err
	}
	switch {
	case r.Level >= slog.LevelError:
		return h.w.Err(line)
	case r.Level >= slog.LevelWarn:
		return h.w.Warning(line)
	case r.Level >= slog.LevelInfo:
		return h.w.Info(line)
	default:
		return h.w.Debug(line)
	}
}

func (h *syslogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &syslogHandler{w: h.w, buf: h.buf, inner: h.inner.WithAttrs(as)}
}

func (h *syslogHandler) WithGroup(name string) slog.Handler {
	return &syslogHandler{w: h.w, buf: h.buf, inner: h.inner.WithGroup(name)}
}
