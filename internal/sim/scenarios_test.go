package sim

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestScenarios runs every scenario file under testdata/scenarios.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			sc, err := LoadScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Passed() {
				var b bytes.Buffer
				res.Report(&b)
				t.Fatalf("\n%s", b.String())
			}
			again, err := Run(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := Diff(res.History, again.History); d != "" {
				t.Fatalf("same seed, different history:\n%s", d)
			}
		})
	}
}
