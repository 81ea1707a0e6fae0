package agent

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
)

// logHub fans the agent's log records out to live monitors
// (/v1/agent/monitor) at their own levels, whatever level the agent
// itself logs at. A slow monitor loses lines; logging never blocks on it.
type logHub struct {
	mu   sync.RWMutex
	subs map[*logSub]struct{}
}

// logSub is one monitor: records at or above level, formatted by format
// (text or JSON), delivered as lines on ch.
type logSub struct {
	level slog.Level
	json  bool
	ch    chan []byte
	drops int
}

func newLogHub() *logHub { return &logHub{subs: map[*logSub]struct{}{}} }

// subscribe starts a monitor; cancel ends it and closes nothing the
// caller reads after.
func (h *logHub) subscribe(level slog.Level, asJSON bool) (*logSub, func()) {
	s := &logSub{level: level, json: asJSON, ch: make(chan []byte, 512)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s, func() {
		h.mu.Lock()
		delete(h.subs, s)
		h.mu.Unlock()
	}
}

// minLevel is the lowest level any monitor wants, ok false without any.
func (h *logHub) minLevel() (slog.Level, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	min, ok := slog.Level(0), false
	for s := range h.subs {
		if !ok || s.level < min {
			min, ok = s.level, true
		}
	}
	return min, ok
}

func (h *logHub) publish(ctx context.Context, r slog.Record, ops []handlerOp) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.subs {
		if r.Level < s.level {
			continue
		}
		select {
		case s.ch <- formatRecord(ctx, r, ops, s.json):
		default:
			s.drops++
		}
	}
}

// handlerOp is one WithAttrs or WithGroup applied to the logger, replayed
// on a monitor's formatter.
type handlerOp struct {
	group string
	attrs []slog.Attr
}

func formatRecord(ctx context.Context, r slog.Record, ops []handlerOp, asJSON bool) []byte {
	var buf bytes.Buffer
	var h slog.Handler
	opts := &slog.HandlerOptions{Level: slog.LevelDebug - 8}
	if asJSON {
		h = slog.NewJSONHandler(&buf, opts)
	} else {
		h = slog.NewTextHandler(&buf, opts)
	}
	for _, op := range ops {
		if op.group != "" {
			h = h.WithGroup(op.group)
		} else {
			h = h.WithAttrs(op.attrs)
		}
	}
	_ = h.Handle(ctx, r)
	return buf.Bytes()
}

// monitoredHandler is the agent's slog handler: it writes to base and
// hands every record a monitor wants to the hub.
type monitoredHandler struct {
	base slog.Handler
	hub  *logHub
	ops  []handlerOp
}

func (m *monitoredHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if m.base.Enabled(ctx, l) {
		return true
	}
	min, ok := m.hub.minLevel()
	return ok && l >= min
}

func (m *monitoredHandler) Handle(ctx context.Context, r slog.Record) error {
	if _, ok := m.hub.minLevel(); ok {
		m.hub.publish(ctx, r, m.ops)
	}
	if m.base.Enabled(ctx, r.Level) {
		return m.base.Handle(ctx, r)
	}
	return nil
}

func (m *monitoredHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &monitoredHandler{base: m.base.WithAttrs(attrs), hub: m.hub, ops: append(m.ops[:len(m.ops):len(m.ops)], handlerOp{attrs: attrs})}
}

func (m *monitoredHandler) WithGroup(name string) slog.Handler {
	return &monitoredHandler{base: m.base.WithGroup(name), hub: m.hub, ops: append(m.ops[:len(m.ops):len(m.ops)], handlerOp{group: name})}
}
