package agent

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"syscall"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/clock"
)

// Option adjusts an agent at New.
type Option func(*Agent)

// WithLogLevel gives the agent the level variable its logger logs at
// (NewLogger's LogOutputs.Level), so Reload can change it.
func WithLogLevel(v *slog.LevelVar) Option { return func(a *Agent) { a.logLevel = v } }

// WithServerClock gives the agent's server its time source (the real
// clock otherwise): tests move the server's time, e.g. past a workload
// identity's expiry.
func WithServerClock(c clock.Clock) Option { return func(a *Agent) { a.serverClock = c } }

// Reload applies what Nomad applies on SIGHUP from a freshly loaded
// config: log_level, and the TLS certificate and key (read again from
// tls.cert_file and tls.key_file for new connections). Every other key
// keeps its running value until a restart; Reload says nothing of them,
// as Nomad does not.
func (a *Agent) Reload(c *config.Config) error {
	level, ok := config.ParseLogLevel(c.LogLevel)
	if !ok {
		return errors.New("reload: log_level " + c.LogLevel + " is not one of TRACE, DEBUG, INFO, WARN, ERROR")
	}
	if err := a.reloadTLS(c.TLS); err != nil {
		return err
	}
	if a.logLevel != nil {
		a.logLevel.Set(level)
	}
	a.log.Info("configuration reloaded", "log_level", c.LogLevel)
	return nil
}

// Leave leaves the cluster gracefully: a server hands leadership over if
// it leads and leaves gossip, so the others remove it from raft at once
// instead of waiting for it as a failed peer. A client has nothing to
// leave (its node goes down when its heartbeats stop).
func (a *Agent) Leave() {
	if a.server != nil {
		a.log.Info("leaving the cluster")
		a.server.Leave()
	}
}

// ShutdownOnSignal is the agent's answer to SIGINT or SIGTERM: it leaves
// the cluster first when leave_on_interrupt (SIGINT) or
// leave_on_terminate (SIGTERM) says so (both off by default, as in
// Nomad: a stopped server stays a raft peer), then shuts down.
func (a *Agent) ShutdownOnSignal(ctx context.Context, sig os.Signal) error {
	if (sig == syscall.SIGINT && a.config.LeaveOnInterrupt) || (sig == syscall.SIGTERM && a.config.LeaveOnTerminate) {
		a.Leave()
	}
	return a.Shutdown(ctx)
}
