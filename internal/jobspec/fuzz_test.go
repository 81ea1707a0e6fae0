package jobspec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks the parser never panics on arbitrary input and that a
// job it accepts always marshals to JSON (the form it is submitted in).
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.nomad.hcl"))
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		job, _, err := Parse("fuzz.nomad.hcl", src, ParseOptions{Env: []string{}})
		if err != nil {
			if job != nil {
				t.Fatal("job returned with an error")
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if _, err := json.Marshal(job); err != nil {
			t.Fatalf("job does not marshal: %v", err)
		}
	})
}
