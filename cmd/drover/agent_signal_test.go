package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent"
)

type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestAgentSignals_HUPReloadsTheFilesThenTERMShutsDown: SIGHUP reloads
// the config files and applies the new log level (a failed reload keeps
// the agent running), and SIGTERM then shuts the agent down cleanly.
func TestAgentSignals_HUPReloadsTheFilesThenTERMShutsDown(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agent.hcl")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("log_level = \"INFO\"\nports {\n  http = 0\n  rpc = 0\n  serf = 0\n}\nclient {\n  enabled = false\n}\n")
	f := &agentFlags{dev: true, configs: stringList{file}}
	cfg, err := loadAgentConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	var out lockedLog
	log, outputs, err := agent.NewLogger(cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(cfg, log, agent.WithLogLevel(outputs.Level))
	if err != nil {
		t.Fatal(err)
	}
	reloads := make(chan error, 4)
	reload := func() error {
		c, err := loadAgentConfig(f)
		if err == nil {
			err = a.Reload(c)
		}
		reloads <- err
		return err
	}
	sigs := make(chan os.Signal, 4)
	exit := make(chan int, 1)
	go func() { exit <- waitForSignal(a, log, reload, sigs) }()

	write(strings.Replace("log_level = \"INFO\"\nports {\n  http = 0\n  rpc = 0\n  serf = 0\n}\nclient {\n  enabled = false\n}\n", "INFO", "DEBUG", 1))
	sigs <- syscall.SIGHUP
	if err := <-reloads; err != nil {
		t.Fatal(err)
	}
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("SIGHUP did not apply log_level DEBUG")
	}
	write("log_level = \"LOUD\"\n")
	sigs <- syscall.SIGHUP
	if err := <-reloads; err == nil {
		t.Fatal("a bad file must fail the reload")
	}
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("a failed reload changed the level")
	}
	sigs <- syscall.SIGTERM
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(2 * shutdownBound):
		t.Fatal(errors.New("no shutdown after SIGTERM"))
	}
	if !strings.Contains(out.String(), "reload failed") {
		t.Errorf("the failed reload was not logged:\n%s", out.String())
	}
}
