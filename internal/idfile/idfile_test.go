package idfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoadOrCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "server")
	first, err := LoadOrCreate(dir, "node-id")
	if err != nil || len(first) != 36 {
		t.Fatalf("first = %q, %v", first, err)
	}
	again, err := LoadOrCreate(dir, "node-id")
	if err != nil || again != first {
		t.Fatalf("again = %q, %v; want %q", again, err, first)
	}
	if err := os.WriteFile(filepath.Join(dir, "node-id"), []byte("not-a-uuid"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(dir, "node-id"); err == nil {
		t.Fatal("a corrupt identity must be an error, not silently replaced")
	}
}
