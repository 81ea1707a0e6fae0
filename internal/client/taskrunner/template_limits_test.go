package taskrunner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestTemplateLimits(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct{ tmpl, wantErr string }{
		// 16 MB of output from a template of under 150 bytes.
		"output bomb":           {`{{ $s := replaceAll "a" "aaaaaaaaaaaaaaaa" "aaaaaaaaaaaaaaaa" }}{{ range split "" $s }}{{ range split "" $s }}{{ $s }}{{ end }}{{ end }}`, "larger than"},
		"replaceAll growth":     {`{{ replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))) }}`, "larger than"},
		"range over a huge int": {`{{ range 1000000000 }}{{ end }}`, "more than 1000000 loop iterations"},
		"silent nested ranges":  {`{{ range 2000 }}{{ range 2000 }}{{ end }}{{ end }}`, "more than 1000000 loop iterations"},
		"doubling recursion":    {`{{ define "x" }}{{ template "x" }}{{ template "x" }}{{ end }}{{ template "x" }}`, "maximum template depth"},
		"huge split":            {`{{ $s := replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" (replaceAll "a" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") }}{{ len (split "" $s) }}`, "more than 100000 elements"},
		"ordinary":              {`{{ range split "," "a,b" }}{{ range split "," "x,y" }}{{ . }}{{ end }}{{ end }}`, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			td := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
			if err := os.MkdirAll(filepath.Join(td, "local"), 0o755); err != nil {
				t.Fatal(err)
			}
			tmpls := []*structs.Template{{EmbeddedTmpl: tc.tmpl, DestPath: "local/out"}}
			_, err := renderTemplates(td, tmpls, map[string]string{}, NewInterpolator(nil, nil, "global"), nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ordinary template refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if fi, err := os.Stat(filepath.Join(td, "local/out")); err == nil {
				t.Fatalf("a refused template wrote %d bytes", fi.Size())
			}
		})
	}
}
