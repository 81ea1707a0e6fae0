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
// every eval and alloc record, written next to the scenario as NAME.golden.
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

// WriteGolden writes the result's transcript as the scenario's golden file.
func WriteGolden(scenarioPath string, r *Result) error {
	return os.WriteFile(GoldenPath(scenarioPath), []byte(r.Transcript()), 0o644)
}

// CheckGolden compares the result with the scenario's golden file: "" when
// they match or there is no golden file, else the differing lines.
func CheckGolden(scenarioPath string, r *Result) (string, error) {
	want, err := os.ReadFile(GoldenPath(scenarioPath))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return diffLines(strings.Split(string(want), "\n"), strings.Split(r.Transcript(), "\n"), 40), nil
}
