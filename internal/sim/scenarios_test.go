package sim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the scenarios' golden transcripts")

// TestScenarios runs every scenario file under testdata/scenarios twice
// with its seed, requires byte-identical transcripts, and compares the
// transcript with its golden file (NAME.golden; -rewrite regenerates them).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			scs, err := LoadScenarios(f)
			if err != nil {
				t.Fatal(err)
			}
			var results []*Result
			for _, sc := range scs {
				results = append(results, runTwice(t, sc))
			}
			if *rewrite {
				if err := WriteGolden(f, results...); err != nil {
					t.Fatal(err)
				}
				return
			}
			d, err := CheckGolden(f, results...)
			if err != nil {
				t.Fatal(err)
			}
			if d != "" {
				t.Fatalf("transcript differs from %s (drover sim -rewrite %s):\n%s", GoldenPath(f), f, d)
			}
		})
	}
}

// runTwice plays a scenario twice with its seed: its expectations must
// hold and the two transcripts must be identical, byte for byte.
func runTwice(t *testing.T, sc *Scenario) *Result {
	t.Helper()
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if !res.Passed() {
		var b bytes.Buffer
		res.Report(&b)
		t.Fatalf("\n%s", b.String())
	}
	again, err := Run(sc, Options{})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if first, second := res.Transcript(), again.Transcript(); first != second {
		t.Fatalf("%s: same seed, different transcript:\n%s", sc.Name, diffLines(strings.Split(first, "\n"), strings.Split(second, "\n"), 40))
	}
	return res
}

// Every scenario has a golden transcript, and a changed outcome fails the
// comparison.
func TestGolden_EveryScenarioHasOneAndChangesAreCaught(t *testing.T) {
	files, _ := filepath.Glob("testdata/scenarios/*.hcl")
	for _, f := range files {
		if _, err := os.Stat(GoldenPath(f)); err != nil {
			t.Errorf("%s has no golden transcript: %v", f, err)
		}
	}
	r := &Result{Scenario: &Scenario{Name: "x"}, History: History{Evals: []EvalRecord{{ID: "E1", Trigger: "job-register", Status: "complete"}}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hcl")
	if err := WriteGolden(path, r); err != nil {
		t.Fatal(err)
	}
	if d, err := CheckGolden(path, r); err != nil || d != "" {
		t.Fatalf("unchanged result differs: %q %v", d, err)
	}
	r.History.Evals[0].Status = "canceled"
	if d, _ := CheckGolden(path, r); !strings.Contains(d, "canceled") {
		t.Fatalf("changed status not reported: %q", d)
	}
}
