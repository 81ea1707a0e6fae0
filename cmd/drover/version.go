package main

import (
	"fmt"
	"io"

	"github.com/drover-project/drover/internal/agent"
)

func runVersion(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "Drover v%s\n", agent.Version)
	return 0
}
