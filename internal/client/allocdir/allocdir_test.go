package allocdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLayout(t *testing.T) {
	d := New(t.TempDir(), "a1")
	if err := d.Build(); err != nil {
		t.Fatal(err)
	}
	td, err := d.BuildTask("web")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d.LogDir, filepath.Join(d.SharedDir, "data"), td.LocalDir, td.SecretsDir, filepath.Join(td.Dir, "tmp")} {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if fi, _ := os.Stat(td.SecretsDir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("secrets mode %v", fi.Mode())
	}
	for _, bad := range []string{"../x", "alloc", ""} {
		if _, err := d.BuildTask(bad); err == nil {
			t.Fatalf("task name %q accepted", bad)
		}
	}
	if err := d.Destroy(); err != nil {
		t.Fatal(err)
	}
}
