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
		var out, errb strings.Builder
		run([]string{fields[0], "-h"}, &out, &errb)
		if strings.Contains(errb.String(), "unknown command") {
			t.Errorf("CLI command %q is registered but cmd/drover does not dispatch it: %s", fields[0], errb.String())
		}
	}
	if seen < 5 {
		t.Fatalf("parsed only %d commands from command.Usage()", seen)
	}
}
