// Command drover is the one Drover binary: the agent and every CLI command.
package main

import (
	"fmt"
	"io"
	"os"

	execdriver "github.com/drover-project/drover/internal/client/drivers/exec"
	"github.com/drover-project/drover/internal/command"
)

func main() {
	// The exec driver re-runs this binary as the isolated task's first
	// process (namespaces, cgroup, chroot); it never returns.
	if len(os.Args) > 1 && os.Args[1] == execdriver.ExecutorArg {
		execdriver.ExecutorMain()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands maps each subcommand to its implementation.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"agent":   runAgent,
	"bench":   runBench,
	"chaos":   runChaos,
	"sim":     runSim,
	"version": runVersion,

	// Every CLI command lives in internal/command and talks HTTP only.
	"acl":        command.Group("acl"),
	"alloc":      command.Group("alloc"),
	"deployment": command.Group("deployment"),
	"eval":       command.Group("eval"),
	"event":      command.Group("event"),
	"job":        command.Group("job"),
	"namespace":  command.Group("namespace"),
	"node":       command.Group("node"),
	"operator":   command.Group("operator"),
	"server":     command.Group("server"),
	"service":    command.Group("service"),
	"status":     command.Group("status"),
	"system":     command.Group("system"),
	"var":        command.Group("var"),
	"config":     runConfig,
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok && command.Known(args[0]) {
		// The rest of the CLI (tls, fmt, monitor, ui, volume...) is
		// internal/command's, by its own registry.
		cmd, ok = command.Group(args[0]), true
	}
	if !ok {
		fmt.Fprintf(stderr, "drover: unknown command %q\n\n", args[0])
		usage(stderr)
		return 1
	}
	return cmd(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: drover <command> [options]

Agent commands:
    agent      Run a Drover agent (server, client, or both)
    config     Validate agent configuration files (config validate)
    version    Print the version

`)
	fmt.Fprint(w, command.Usage())
	fmt.Fprint(w, `
Run "drover <command> -h" for a command's options.
`)
}
