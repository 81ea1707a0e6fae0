package agent

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestOperatorSnapshot_SaveThenRestoreRewindsState saves a snapshot,
// changes state, restores, and finds the state of the snapshot.
func TestOperatorSnapshot_SaveThenRestoreRewindsState(t *testing.T) {
	a, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("before"), nil); err != nil {
		t.Fatal(err)
	}
	rc, err := c.Operator().Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || len(snap) == 0 {
		t.Fatalf("snapshot: %v, %d bytes", err, len(snap))
	}
	if _, _, err := c.Jobs().Register(testAPIJob("after"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Operator().SnapshotRestore(bytes.NewReader(snap), nil); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if _, _, err := c.Jobs().Info("before", nil); err != nil {
		t.Fatalf("job from the snapshot lost: %v", err)
	}
	if _, _, err := c.Jobs().Info("after", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("job registered after the snapshot survived the restore: %v", err)
	}
	// The broker was rebuilt from the restored state: the pending eval of
	// "before" is held again.
	if st := a.Server().Stats(); st.Broker.TotalReady+st.Broker.TotalUnacked != 1 {
		t.Fatalf("broker after restore: %+v", st.Broker)
	}
	// Garbage is refused with 400 and changes nothing.
	code, msg := doRaw(t, a, "PUT", "/v1/operator/snapshot", "not a snapshot")
	if code != 400 || !strings.Contains(msg, "not a drover snapshot") {
		t.Fatalf("bad snapshot: %d %s", code, msg)
	}
}
