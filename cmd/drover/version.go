package main

import (
	"fmt"
	"io"

	"github.com/drover-project/drover/internal/agent"
)

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprint(stdout, "Usage: drover version\n\n  Prints the version of this binary.\n")
		return boolExit(args[0] != "-h" && args[0] != "-help" && args[0] != "--help")
	}
	fmt.Fprintf(stdout, "Drover v%s\n", agent.Version)
	return 0
}

func boolExit(failed bool) int {
	if failed {
		return 1
	}
	return 0
}
