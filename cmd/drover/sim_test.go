package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `drover sim -rewrite FILE` writes the golden transcript of every variant
// of a scenario file; a plain run then matches it, and a run against a
// changed golden file fails naming the difference.
func TestSim_RewriteThenCompare(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "sim", "testdata", "scenarios", "deployment-steps.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "steps.hcl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runSim([]string{"-rewrite", path}, &out, &errOut); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut.String())
	}
	golden, err := os.ReadFile(strings.TrimSuffix(path, ".hcl") + ".golden")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"steps[2-nodes]", "steps[4-nodes]"} {
		if !bytes.Contains(golden, []byte("scenario "+v)) {
			t.Fatalf("golden transcript lacks variant %s:\n%s", v, golden)
		}
	}
	if code := runSim([]string{path}, &out, &errOut); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut.String())
	}
	changed := bytes.Replace(golden, []byte("job-register complete"), []byte("job-register failed"), 1)
	if err := os.WriteFile(strings.TrimSuffix(path, ".hcl")+".golden", changed, 0o644); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := runSim([]string{path}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "job-register failed") {
		t.Fatalf("changed golden: exit %d, stderr %q", code, errOut.String())
	}
}
