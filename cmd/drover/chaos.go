package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/drover-project/drover/internal/chaos"
)

// runChaos runs the fault harness (internal/chaos) with this binary as the
// servers' agent and prints its figures; it exits 1 when a check failed.
func runChaos(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	servers := fs.Int("servers", 3, "server processes (3 or 5)")
	rounds := fs.Int("rounds", 12, "rounds, one fault each: kill-leader, kill-follower, pause-leader, partition-leader, restart-follower, node-flap, partition-leader-drop, kill-client, ...")
	nodes := fs.Int("nodes", 8, "simulated client nodes")
	clients := fs.Int("clients", 1, "real client agents running the load's raw_exec jobs (0: none)")
	seed := fs.Uint64("seed", 1, "seed of the load and fault choices")
	faults := fs.String("faults", "", "comma-separated fault cycle (default: all of them in turn), e.g. partition-leader")
	dir := fs.String("dir", "", "work directory for the servers' data and logs (default: a temporary one, removed unless -keep)")
	keep := fs.Bool("keep", false, "keep the work directory")
	agentBin := fs.String("agent-binary", "", "drover binary the servers and clients run (default: this one), e.g. an older build to compare")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: drover chaos [-servers 3] [-rounds 12] [-faults LIST] [-nodes 8] [-clients 1] [-seed 1] [-dir DIR] [-keep] [-agent-binary PATH]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "drover chaos:", err)
		return 1
	}
	work := *dir
	if work == "" {
		if work, err = os.MkdirTemp("", "drover-chaos-"); err != nil {
			fmt.Fprintln(stderr, "drover chaos:", err)
			return 1
		}
		if !*keep {
			defer os.RemoveAll(work)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "drover chaos: %d servers, %d rounds, %d nodes, seed %d, work dir %s\n", *servers, *rounds, *nodes, *seed, work)
	var cycle []string
	if *faults != "" {
		cycle = strings.Split(*faults, ",")
	}
	if *agentBin != "" {
		self = *agentBin
	}
	report, err := chaos.Run(ctx, chaos.Config{Binary: self, Servers: *servers, Rounds: *rounds, Faults: cycle,
		Nodes: *nodes, Clients: clientCount(*clients), Seed: *seed, WorkDir: work, Log: stdout})
	if report != nil {
		fmt.Fprintln(stdout)
		report.Print(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "drover chaos:", err)
		return 1
	}
	if !report.OK() {
		fmt.Fprintln(stderr, "drover chaos: a check failed")
		return 1
	}
	return 0
}

// clientCount maps the -clients flag onto Config.Clients (0 there means
// the default, negative none).
func clientCount(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
