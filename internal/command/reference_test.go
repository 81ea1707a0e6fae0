package command

import (
	"os"
	"strings"
	"testing"
)

// TestCLIReference_UpToDate: docs/reference/cli.md is what Reference
// generates from the command definitions (-update rewrites it), so the
// reference cannot go stale.
func TestCLIReference_UpToDate(t *testing.T) {
	const path = "../../docs/reference/cli.md"
	want := Reference()
	if *update {
		if err := os.MkdirAll("../../docs/reference", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/command -run TestCLIReference -update writes it)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: go test ./internal/command -run TestCLIReference -update", path)
	}
	for _, name := range Names() {
		if !strings.Contains(want, "## drover "+name+"\n") {
			t.Errorf("the reference lacks %s", name)
		}
	}
}

// TestCompatDoc_ListsEveryCommand: docs/compat.md's CLI table names every
// drover command (with the test that runs it).
func TestCompatDoc_ListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../docs/compat.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "## The drover CLI")
	if i < 0 {
		t.Fatal("docs/compat.md has no \"## The drover CLI\" section")
	}
	section := doc[i:]
	for _, name := range Names() {
		if _, refused := refusedCommands[name]; refused {
			continue
		}
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("docs/compat.md's CLI section does not list `%s`", name)
		}
	}
}
