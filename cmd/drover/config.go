package main

import (
	"fmt"
	"io"
	"os"

	"github.com/drover-project/drover/internal/agent/config"
)

// runConfig is `drover config validate <path>...`: it loads agent config
// files (or directories) as `drover agent -config` would and reports
// every refused field with file:line:col, exiting 1 on the first error.
func runConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "validate" {
		fmt.Fprint(stderr, "Usage: drover config validate <path>...\n\n  Validates agent configuration files or directories.\n")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return 0
		}
		return 1
	}
	paths := args[1:]
	if len(paths) == 1 && (paths[0] == "-h" || paths[0] == "-help") {
		fmt.Fprint(stdout, "Usage: drover config validate <path>...\n\n  Loads the agent configuration files or directories as `drover agent -config` does\n  and reports what is refused, with file:line:col. Exit 0 when valid, 1 otherwise.\n")
		return 0
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "Error: config validate takes at least one path")
		return 1
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
	}
	cfg, err := config.Load(paths...)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "Configuration is valid!")
	return 0
}
