package main

import (
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/command"
)

// TestEveryCLIGroupIsReachable: each top-level command the CLI registers
// (as command.Usage lists them) is dispatched by main.
func TestEveryCLIGroupIsReachable(t *testing.T) {
	lines := strings.Split(command.Usage(), "\n")
	seen := 0
	for _, l := range lines[1:] {
		fields := strings.Fields(l)
		if len(fields) == 0 {
			continue
		}
		seen++
		if _, ok := commands[fields[0]]; !ok {
			t.Errorf("CLI command %q is registered but cmd/drover does not dispatch it", fields[0])
		}
	}
	if seen < 5 {
		t.Fatalf("parsed only %d commands from command.Usage()", seen)
	}
}
