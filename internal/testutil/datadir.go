package testutil

import (
	"os"
	"testing"
	"time"
)

// DataDir is a temporary data dir for an agent or client under test.
// Unlike t.TempDir, its removal retries for a few seconds: a killed
// task's executor may still write its exit record into the alloc dir
// just after the client has stopped, which would fail t.TempDir's single
// attempt with "directory not empty". Call it before starting the agent,
// so the removal runs after the agent's own cleanup.
func DataDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "drover-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var err error
		for range 50 {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("removing data dir %s: %v", dir, err)
	})
	return dir
}
