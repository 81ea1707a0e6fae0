package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Golden transcripts pin a scenario's whole outcome, not just what its
// expect blocks count: the report (eval chains, counts, failures) and
// every eval and alloc record, written next to the scenario as NAME.golden
// (every variant's, in order, for a file with variant blocks).
// `drover sim -rewrite FILE` (or `go test ./internal/sim -run
// TestScenarios -args -rewrite`) regenerates them after an intended
// change; a run whose transcript differs from its golden file fails with
// the first differing lines, as etcd's raft datadriven tests do.

// Transcript is the text a golden file holds for a result.
func (r *Result) Transcript() string {
	var b bytes.Buffer
	r.Report(&b)
	fmt.Fprintf(&b, "\n%s\n", r.History)
	return b.String()
}

// GoldenPath is where a scenario file's golden transcript lives.
func GoldenPath(scenarioPath string) string {
	return strings.TrimSuffix(scenarioPath, ".hcl") + ".golden"
}

// transcripts joins the transcripts of a file's scenarios (its variants,
// in file order).
func transcripts(results []*Result) string {
	parts := make([]string, len(results))
	for i, r := range results {
		parts[i] = r.Transcript()
	}
	return strings.Join(parts, "\n")
}

// WriteGolden writes the results' transcripts as the scenario file's
// golden file: one result per scenario the file holds.
func WriteGolden(scenarioPath string, results ...*Result) error {
	return os.WriteFile(GoldenPath(scenarioPath), []byte(transcripts(results)), 0o644)
}

// CheckGolden compares the results with the scenario file's golden file:
// "" when they match or there is no golden file, else the differing
// lines.
func CheckGolden(scenarioPath string, results ...*Result) (string, error) {
	want, err := os.ReadFile(GoldenPath(scenarioPath))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return diffLines(strings.Split(string(want), "\n"), strings.Split(transcripts(results), "\n"), 40), nil
}
