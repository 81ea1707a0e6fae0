// Command drover is the one Drover binary: the agent and every CLI command.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands maps each subcommand to its implementation.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"agent":   runAgent,
	"version": runVersion,
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
	if !ok {
		fmt.Fprintf(stderr, "drover: unknown command %q\n\n", args[0])
		usage(stderr)
		return 1
	}
	return cmd(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: drover <command> [options]

Commands:
    agent      Run a Drover agent (server, and later client)
    version    Print the version

Run "drover <command> -h" for a command's options.
`)
}
