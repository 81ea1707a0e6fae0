package client

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// levelCounter counts the records at each level whose message contains
// "node registration".
type levelCounter struct {
	mu     sync.Mutex
	counts map[slog.Level]int
	msgs   []string
}

func (l *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (l *levelCounter) Handle(_ context.Context, r slog.Record) error {
	if !strings.Contains(r.Message, "node registration") {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[r.Level]++
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *levelCounter) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levelCounter) WithGroup(string) slog.Handler      { return l }

func (l *levelCounter) count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[level]
}

// The client of an agent whose server does not hold the keyring yet (a
// server that just joined) is refused without a token: it says its server
// cannot vouch for it yet, once, and registers with the agent node
// credential as soon as the server has it.
func TestRegister_WaitsForItsOwnServerToVouch(t *testing.T) {
	h := newHarness(t)
	log := &levelCounter{counts: map[slog.Level]int{}}
	h.cfg.Logger = slog.New(log)
	h.fs.registerToken = "agent-cred"
	var vouches atomic.Bool
	h.cfg.AgentNodeCredential = func() (string, bool) {
		if !vouches.Load() {
			return "", false
		}
		return "agent-cred", true
	}
	c := h.start()
	h.advanceUntil("two refusals", time.Second, func() bool { return log.count(slog.LevelDebug) >= 1 })
	if n := log.count(slog.LevelWarn); n != 1 || log.count(slog.LevelError) != 0 {
		t.Fatalf("warnings %d, errors %d (%q), want one warning", n, log.count(slog.LevelError), log.msgs)
	}
	if !strings.Contains(log.msgs[0], "this agent's server cannot vouch for its own client") {
		t.Fatalf("guidance %q", log.msgs[0])
	}
	vouches.Store(true)
	h.advanceUntil("registered", time.Second, func() bool {
		select {
		case <-c.registered:
			return true
		default:
			return false
		}
	})
}
