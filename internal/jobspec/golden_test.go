package jobspec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json golden files")

// TestGolden parses testdata/example.nomad.hcl and compares the API job's
// JSON with testdata/example.json; regenerate with `go test -update`.
func TestGolden(t *testing.T) {
	job, _ := mustParse(t, "example.nomad.hcl", ParseOptions{})
	got, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "example.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("parsed job differs from %s (run with -update if intended):\n%s", golden, got)
	}
}
