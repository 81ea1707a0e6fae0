package builtin

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/reference/drivers.md")

// TestReferenceDocIsCurrent fails when docs/reference/drivers.md is not
// what the schemas generate; -update rewrites it.
func TestReferenceDocIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "docs", "reference", "drivers.md")
	want := ReferenceMarkdown()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/client/drivers/builtin -run TestReferenceDocIsCurrent -update writes it)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: go test ./internal/client/drivers/builtin -run TestReferenceDocIsCurrent -update", path)
	}
}

// TestConfigProblems_DidYouMean: a misspelt key names the key meant; a
// key far from every known one lists them.
func TestConfigProblems_DidYouMean(t *testing.T) {
	cases := []struct {
		driver string
		cfg    map[string]any
		want   []string
	}{
		{"docker", map[string]any{"imagee": "x"}, []string{`config field "imagee": unknown field (did you mean "image"?)`, `config field "image": required field is missing`}},
		{"raw_exec", map[string]any{"command": "/bin/true", "agrs": []any{"x"}}, []string{`config field "agrs": unknown field (did you mean "args"?)`}},
		{"exec", map[string]any{"command": "/bin/true", "zzzzzzzz": 1}, []string{`config field "zzzzzzzz": unknown field (the exec driver knows args, cap_add, cap_drop, command)`}},
		{"raw_exec", map[string]any{"command": "/bin/true"}, nil},
	}
	for _, tc := range cases {
		known, ps := ConfigProblems(tc.driver, tc.cfg)
		if !known {
			t.Errorf("%s: not known", tc.driver)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.Message)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s %v: problems %q, want %q", tc.driver, tc.cfg, got, tc.want)
			continue
		}
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("%s %v: problems %q, want %q", tc.driver, tc.cfg, got, w)
			}
		}
	}
	if known, ps := ConfigProblems("podman", map[string]any{"anything": 1}); known || ps != nil {
		t.Errorf("third-party driver: known %v, problems %v", known, ps)
	}
}
