package agent

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
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

// A snapshot whose header is valid but whose state is garbage is refused
// with 400 before it reaches raft, and the server keeps serving.
func TestOperatorSnapshot_GarbageStateIsRefused(t *testing.T) {
	a, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("keep"), nil); err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte{0xc1}, 4096)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("drover-snapshot-v1\n"))
	json.NewEncoder(zw).Encode(&raft.SnapshotMeta{Version: 1, ID: "x", Index: 9, Term: 1, Size: int64(len(payload))})
	zw.Write(payload)
	zw.Close()
	code, msg := doRaw(t, a, "PUT", "/v1/operator/snapshot", buf.String())
	if code != 400 || !strings.Contains(msg, "does not restore") {
		t.Fatalf("garbage snapshot: %d %s", code, msg)
	}
	if _, _, err := c.Jobs().Info("keep", nil); err != nil {
		t.Fatalf("server after a refused snapshot: %v", err)
	}
}
