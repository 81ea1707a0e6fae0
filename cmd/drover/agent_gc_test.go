package main

import (
	"log/slog"
	"runtime/debug"
	"testing"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
)

// A server agent runs with the server's collector target; a client-only
// agent keeps Go's default.
func TestAgent_ServerProcessGetsTheServerGCTarget(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	unset := func(string) (string, bool) { return "", false }
	for _, tc := range []struct {
		name   string
		server bool
		want   int
	}{{"client only", false, 100}, {"server", true, server.ServerGCPercent}} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			cfg := &config.Config{}
			cfg.Server.Enabled = tc.server
			tuneServerGC(cfg, unset, slog.New(slog.DiscardHandler))
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Fatalf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}
