package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperatorSnapshot saves a snapshot, registers a job, restores the
// snapshot, and finds the job gone: the state is the snapshot's again.
func TestOperatorSnapshot(t *testing.T) {
	addr, _ := testAgent(t, nil)
	dir := t.TempDir()
	snap := filepath.Join(dir, "state.snap")
	r := run(t, "operator", "snapshot", "save", "-address", addr, snap)
	if r.code != 0 || r.stdout != "State file written to "+snap+"\n" {
		t.Fatalf("save: %+v", r)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("save left %d files behind, want only the snapshot", len(entries))
	}
	registerExample(t, addr)
	if r := run(t, "job", "status", "-address", addr, "example"); r.code != 0 {
		t.Fatalf("job status after register: %+v", r)
	}
	golden(t, "operator_snapshot_restore", run(t, "operator", "snapshot", "restore", "-address", addr, snap))
	if r := run(t, "job", "status", "-address", addr, "example"); r.code != 1 || !strings.Contains(r.stderr, "example") {
		t.Fatalf("job registered after the snapshot survived the restore: %+v", r)
	}
}

func TestOperatorSnapshotErrors(t *testing.T) {
	addr, _ := testAgent(t, nil)
	golden(t, "operator_snapshot_save_bad_dir", run(t, "operator", "snapshot", "save", "-address", addr, "testdata/no-such-dir/x.snap"))
	golden(t, "operator_snapshot_restore_missing", run(t, "operator", "snapshot", "restore", "-address", addr, "testdata/no-such.snap"))
	golden(t, "operator_snapshot_group", run(t, "operator", "snapshot"))

	garbage := filepath.Join(t.TempDir(), "garbage.snap")
	if err := os.WriteFile(garbage, []byte("not a snapshot"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "operator", "snapshot", "restore", "-address", addr, garbage)
	if r.code != 1 || !strings.Contains(r.stderr, "not a drover snapshot") || !strings.Contains(r.stderr, "HTTP 400") {
		t.Fatalf("restore of garbage: %+v", r)
	}
	// A save to an unreachable agent fails without creating the file.
	target := filepath.Join(t.TempDir(), "x.snap")
	r = run(t, "operator", "snapshot", "save", "-address", "http://127.0.0.1:1", target)
	if _, err := os.Stat(target); r.code != 1 || err == nil {
		t.Fatalf("save to a dead agent: %+v (file exists: %v)", r, err == nil)
	}
}
