package sim

import (
	"strings"
	"testing"
)

func TestParseScenarios_VariantsBindVar(t *testing.T) {
	src := `
description = "nodes: ${var.nodes}"
variant "two" {
  nodes = 2
  mode  = "keep_original"
}
variant "four" {
  nodes = 4
  mode  = "keep_replacement"
}
node "n" {
  count = var.nodes
}
job "web" {
  disconnect {
    reconcile = var.mode
  }
}
`
	scs, err := ParseScenarios([]byte(src), "v.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 2 {
		t.Fatalf("%d scenarios, want 2", len(scs))
	}
	for i, want := range []struct {
		variant, desc, mode string
		nodes               int
	}{{"two", "nodes: 2", "keep_original", 2}, {"four", "nodes: 4", "keep_replacement", 4}} {
		sc := scs[i]
		if sc.Variant != want.variant || sc.Description != want.desc || sc.Nodes[0].Count != want.nodes ||
			sc.Jobs[0].Disconnect.Reconcile != want.mode {
			t.Errorf("scenario %d: variant %q desc %q nodes %d mode %q, want %+v",
				i, sc.Variant, sc.Description, sc.Nodes[0].Count, sc.Jobs[0].Disconnect.Reconcile, want)
		}
	}
}

func TestParseScenarios_VariantsMustSetTheSameNames(t *testing.T) {
	src := `
variant "a" {
  nodes = 2
}
variant "b" {
  count = 2
}
node "n" {
  count = var.nodes
}
`
	_, err := ParseScenarios([]byte(src), "v.hcl")
	if err == nil || !strings.Contains(err.Error(), `variant "b"`) {
		t.Fatalf("err = %v, want one naming variant b", err)
	}
}

func TestParseScenarios_NoVariantsIsOneScenario(t *testing.T) {
	scs, err := ParseScenarios([]byte(`seed = 3`), "one.hcl")
	if err != nil || len(scs) != 1 || scs[0].Seed != 3 || scs[0].Variant != "" {
		t.Fatalf("got %v %v", scs, err)
	}
}

// TestLoadScenario_OneScenarioOnly checks that LoadScenario returns the one
// scenario of a file without variants, named after the file, and refuses
// a file with variants (LoadScenarios reads those).
func TestLoadScenario_OneScenarioOnly(t *testing.T) {
	sc, err := LoadScenario("testdata/scenarios/alloc-restart-and-job-stop.hcl")
	if err != nil || sc == nil {
		t.Fatalf("scenario %v, error %v", sc, err)
	}
	if sc.Name != "alloc-restart-and-job-stop" {
		t.Errorf("name %q, want the file's", sc.Name)
	}
	_, err = LoadScenario("testdata/scenarios/disconnect-reconnect.hcl")
	if err == nil || !strings.Contains(err.Error(), "3 variants, want one scenario") {
		t.Fatalf("loading a file with 3 variants: %v, want the one-scenario error", err)
	}
}
