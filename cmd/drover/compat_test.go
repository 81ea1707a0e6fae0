package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/command"
)

// TestNomadCommands_EveryOneExistsInDrover walks Nomad CE's command list
// (internal/command/testdata/nomad_ce_commands.txt, from Nomad's command
// reference) and runs `drover <command> -h` for each: it must print the
// command's usage and exit 0. The commands Drover refuses on purpose are
// counted and must say why when run.
func TestNomadCommands_EveryOneExistsInDrover(t *testing.T) {
	f, err := os.Open("../../internal/command/testdata/nomad_ce_commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total, refused int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		total++
		args := append(strings.Fields(name), "-h")
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		help := out.String() + errb.String()
		if code != 0 || !strings.Contains(help, "Usage: drover "+name) {
			t.Errorf("drover %s -h: exit %d, output %q", name, code, help)
			continue
		}
		if reason := command.Refused(name); reason != "" {
			refused++
			out.Reset()
			errb.Reset()
			if code := run(strings.Fields(name), &out, &errb); code != 1 || !strings.Contains(errb.String(), reason) {
				t.Errorf("refused drover %s: exit %d, stderr %q, want exit 1 and the reason", name, code, errb.String())
			}
		}
	}
	if total < 150 {
		t.Fatalf("read only %d commands from the list", total)
	}
	t.Logf("%d Nomad CE commands, %d implemented, %d refused on purpose", total, total-refused, refused)
}
