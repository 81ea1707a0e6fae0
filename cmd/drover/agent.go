package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// agentFlags are the command-line settings that override config files.
type agentFlags struct {
	dev             bool
	configs         stringList
	dataDir         string
	bind            string
	logLevel        string
	server          bool
	bootstrapExpect int
	fastGossip      bool
	partitionFile   string
	client          bool
	servers         stringList
	join            stringList
	region, dc      string
	node            string
}

func parseAgentFlags(args []string, stderr io.Writer) (*agentFlags, error) {
	f := &agentFlags{}
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.dev, "dev", false, "Start a single-process development agent: an in-memory server and a client (raw_exec on) on 127.0.0.1, no config needed; the web UI at http://127.0.0.1:4646/ui.")
	fs.Var(&f.configs, "config", "Path to an HCL or JSON config file or directory. Repeatable; later ones win.")
	fs.StringVar(&f.dataDir, "data-dir", "", "Directory for the agent's state (raft log and snapshots).")
	fs.StringVar(&f.bind, "bind", "", "Address to bind the HTTP and RPC listeners to.")
	fs.StringVar(&f.logLevel, "log-level", "", "Log level: TRACE, DEBUG, INFO, WARN or ERROR.")
	fs.BoolVar(&f.server, "server", false, "Enable server mode.")
	fs.BoolVar(&f.client, "client", false, "Enable client mode: run tasks placed on this node.")
	fs.Var(&f.servers, "servers", "With -client, a server's RPC address (host[:4647]) to register with. Repeatable.")
	fs.Var(&f.join, "retry-join", "A server's gossip address (host[:4648]) to join, retried until it answers. Repeatable.")
	fs.StringVar(&f.region, "region", "", "The agent's region (default global).")
	fs.StringVar(&f.dc, "dc", "", "The agent's datacenter (default dc1).")
	fs.StringVar(&f.node, "node", "", "The agent's name (default: the host name).")
	fs.IntVar(&f.bootstrapExpect, "bootstrap-expect", 0, "Number of servers to wait for before bootstrapping.")
	fs.BoolVar(&f.fastGossip, "fast-gossip", false, "Loopback gossip timings: failed servers are seen in about a second (tests, drover chaos).")
	fs.StringVar(&f.partitionFile, "partition-file", "", "Fault injection (drover chaos): a file listing peer rpc and serf addresses whose traffic (raft, RPC, gossip) is cut: refused, or silently dropped when the file also holds the word drop.")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: drover agent [options]\n\n  Starts a Drover agent (a server, a client, or both) and runs until interrupted\n  (SIGINT or SIGTERM). A client-only agent forwards the cluster API to its servers,\n  so every command may be pointed at any agent. Settings come from -config files\n  (HCL or JSON, Nomad's agent configuration); these flags override them.\n\nOptions:\n")
		fs.PrintDefaults()
	}
	return f, fs.Parse(args)
}

// loadAgentConfig builds the effective config: dev defaults or files, then flags.
func loadAgentConfig(f *agentFlags) (*config.Config, error) {
	var cfg *config.Config
	switch {
	case f.dev:
		var err error
		if cfg, err = config.LoadDev(f.configs...); err != nil {
			return nil, err
		}
	case len(f.configs) > 0:
		var err error
		if cfg, err = config.Load(f.configs...); err != nil {
			return nil, err
		}
	default:
		cfg = config.Default()
	}
	applyAgentFlags(cfg, f)
	return cfg, cfg.Validate()
}

func applyAgentFlags(cfg *config.Config, f *agentFlags) {
	if f.dataDir != "" {
		cfg.DataDir = f.dataDir
	}
	if f.bind != "" {
		cfg.BindAddr = f.bind
	}
	if f.logLevel != "" {
		cfg.LogLevel = f.logLevel
	}
	if f.server {
		cfg.Server.Enabled = true
	}
	if f.client {
		cfg.Client.Enabled = true
	}
	if len(f.servers) > 0 {
		cfg.Client.Servers = append([]string(nil), f.servers...)
	}
	if len(f.join) > 0 {
		cfg.Server.ServerJoin.RetryJoin = append(cfg.Server.ServerJoin.RetryJoin, f.join...)
	}
	if f.region != "" {
		cfg.Region = f.region
	}
	if f.dc != "" {
		cfg.Datacenter = f.dc
	}
	if f.node != "" {
		cfg.Name = f.node
	}
	if f.bootstrapExpect != 0 {
		cfg.Server.BootstrapExpect = f.bootstrapExpect
	}
	cfg.FastGossip = cfg.FastGossip || f.fastGossip
	if f.partitionFile != "" {
		cfg.PartitionFile = f.partitionFile
	}
}

func runAgent(args []string, stdout, stderr io.Writer) int {
	f, err := parseAgentFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 1
	}
	cfg, err := loadAgentConfig(f)
	if err != nil {
		fmt.Fprintf(stderr, "drover agent: %v\n", err)
		return 1
	}
	log, outputs, err := agent.NewLogger(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "drover agent: %v\n", err)
		return 1
	}
	defer outputs.Close()
	tuneServerGC(cfg, os.LookupEnv, log)
	a, err := agent.New(cfg, log, agent.WithLogLevel(outputs.Level))
	if err != nil {
		fmt.Fprintf(stderr, "drover agent: %v\n", err)
		return 1
	}
	log.Info("drover agent started", "version", agent.Version, "http", a.HTTPAddr(), "dev", cfg.DevMode, "data_dir", cfg.DataDir)
	reload := func() error {
		cfg, err := loadAgentConfig(f)
		if err != nil {
			return err
		}
		return a.Reload(cfg)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	return waitForSignal(a, log, reload, sigs)
}

// tuneServerGC gives a process that runs a server the server's collector
// target (server.TuneGC); a client-only agent keeps Go's default.
func tuneServerGC(cfg *config.Config, lookupEnv func(string) (string, bool), log *slog.Logger) {
	if !cfg.Server.Enabled {
		return
	}
	percent, fromEnv := server.TuneGC(lookupEnv)
	log.Info("garbage collector target", "gogc", percent, "from_env", fromEnv)
}

// shutdownBound is how long the agent takes to shut down at most: past it
// the agent logs what it still waits for and exits anyway (raft's log has
// every acknowledged write on disk already).
const shutdownBound = 10 * time.Second

// waitForSignal runs until SIGINT or SIGTERM, then shuts down cleanly
// within shutdownBound, leaving the cluster first when leave_on_interrupt
// or leave_on_terminate asks (Agent.ShutdownOnSignal). SIGHUP reloads the
// config files and applies what Nomad applies (Agent.Reload: log level,
// TLS certificates). A second SIGINT or SIGTERM during the shutdown exits
// at once.
func waitForSignal(a *agent.Agent, log *slog.Logger, reload func() error, sigs <-chan os.Signal) int {
	var sig os.Signal
	for sig = <-sigs; sig == syscall.SIGHUP; sig = <-sigs {
		if err := reload(); err != nil {
			log.Error("reload failed; the running configuration stays", "error", err)
		}
	}
	log.Info("shutting down", "signal", sig.String(), "bound", shutdownBound)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownBound)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.ShutdownOnSignal(ctx, sig) }()
	select {
	case err := <-done:
		if err != nil {
			log.Error("shutdown", "error", err)
			return 1
		}
		return 0
	case sig := <-sigs:
		log.Warn("second signal during shutdown: exiting at once", "signal", sig.String())
		return 1
	}
}
