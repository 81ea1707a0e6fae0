package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// startAgent starts an agent from cfg on free ports, logging to log, and
// shuts it down when the test ends.
func startAgent(t *testing.T, cfg *config.Config, log *slog.Logger) *Agent {
	t.Helper()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, err := New(cfg, log)
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a
}

// An agent that runs both roles with ACLs on, and no node_registration_token
// anywhere in its configuration (not -dev, which draws one of its own),
// registers its own client: its server vouches for it.
func TestNodeRegistration_ServerAndClientAgentWithACLsRegistersItsOwnNode(t *testing.T) {
	cfg := config.DevConfig()
	cfg.DevMode = false
	cfg.DataDir = testutil.DataDir(t)
	cfg.ACL.Enabled = true
	a := startAgent(t, cfg, nil)
	if a.config.Server.NodeRegistrationToken != "" || a.config.Client.NodeRegistrationToken != "" {
		t.Fatalf("the test needs an agent without node_registration_token")
	}
	testutil.WaitFor(t, 20*time.Second, "the agent's own node to be ready", func() (bool, string) {
		c := a.Client()
		if c == nil {
			return false, "no client yet"
		}
		n, err := a.Server().State().NodeByID(nil, c.Node().ID)
		if err != nil || n == nil {
			return false, fmt.Sprintf("node not registered (%v)", err)
		}
		return n.Status == structs.NodeStatusReady, "status " + n.Status
	})
}

// logRecorder keeps every record logged through it, at every level.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// matching returns the records at level whose message contains text.
func (r *logRecorder) matching(level slog.Level, text string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.records {
		if rec.Level == level && strings.Contains(rec.Message, text) {
			out = append(out, rec.Message)
		}
	}
	return out
}

// A client-only agent whose node_registration_token is missing or wrong
// says so at error level, once, naming the setting to fix, and keeps
// retrying (each retry adds a debug line, not another error).
func TestNodeRegistration_RefusedTokenLogsTheSettingOnce(t *testing.T) {
	srv, _ := testAgent(t, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	for _, tc := range []struct {
		name, token, want string
	}{
		{"missing", "", "no node registration token is configured; set client { node_registration_token }"},
		{"wrong", "not-the-cluster-credential", "the servers do not accept client { node_registration_token }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.DevConfig()
			cfg.Name = "client-" + tc.name
			cfg.Server.Enabled = false
			cfg.Client.Servers = []string{srv.RPCAddr()}
			cfg.Client.NodeRegistrationToken = tc.token
			cfg.DataDir = testutil.DataDir(t)
			rec := &logRecorder{}
			startAgent(t, cfg, slog.New(rec))
			testutil.WaitFor(t, 20*time.Second, "the refusal logged and retried", func() (bool, string) {
				errs := rec.matching(slog.LevelError, tc.want)
				retried := rec.matching(slog.LevelDebug, "node registration refused again")
				return len(errs) == 1 && len(retried) > 0, fmt.Sprintf("%d errors %q, %d retries", len(errs), errs, len(retried))
			})
			if errs := rec.matching(slog.LevelError, "node registration"); len(errs) != 1 {
				t.Fatalf("error lines %q, want one", errs)
			}
		})
	}
}
