package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveTempDataDir: a -dev client's data dir, alloc dirs and all, is
// gone once the channel closes.
func TestRemoveTempDataDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		task := filepath.Join(dir, "alloc", fmt.Sprintf("a%02d", i), "t", "local")
		if err := os.MkdirAll(task, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(task, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := &Agent{tempDataDir: dir}
	<-a.removeTempDataDir()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data dir still there: %v", err)
	}
	<-(&Agent{}).removeTempDataDir() // no dev dir: nothing to wait for
}
