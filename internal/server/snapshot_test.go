package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
)

// operatorSnapshot builds an operator snapshot file around payload, with
// metadata that matches it.
func operatorSnapshot(t testing.TB, payload []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(snapshotMagic))
	meta := raft.SnapshotMeta{Version: raft.SnapshotVersionMax, ID: "x", Index: 5, Term: 1, Size: int64(len(payload))}
	json.NewEncoder(zw).Encode(&meta)
	zw.Write(payload)
	zw.Close()
	return buf.Bytes()
}

// A snapshot with a valid header and a garbage payload used to reach raft,
// whose FSM restore failed: raft panicked, kept the snapshot on disk, and
// the server never started again. Now it is a 400 and nothing changes.
func TestRestoreSnapshot_GarbagePayloadIsRefusedAndServerRestarts(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("keep")}); err != nil {
		t.Fatal(err)
	}
	for _, payload := range [][]byte{
		bytes.Repeat([]byte{0xc1}, 4096),            // never valid msgpack
		[]byte{0x02, 0x81, 0xa2, 'I', 'D', 0xc0},    // a job record without an ID
		[]byte{0x63, 0x80},                          // unknown record type
		bytes.Repeat([]byte{0x02, 0xdf, 0xff}, 100), // huge map headers
	} {
		err := s.RestoreSnapshot(bytes.NewReader(operatorSnapshot(t, payload)))
		var ce *CodedError
		if !errors.As(err, &ce) || ce.Code != 400 {
			t.Fatalf("garbage snapshot % x...: got %v, want a 400", payload[:3], err)
		}
	}
	if job, _ := s.State().JobByID(nil, "default", "keep"); job == nil {
		t.Fatal("a refused snapshot changed the state")
	}
	s.Shutdown()
	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { job, _ := s2.State().JobByID(nil, "default", "keep"); return job != nil })
}

func TestSpoolSnapshot_CapsDecompressedSize(t *testing.T) {
	snap := operatorSnapshot(t, make([]byte, 1<<20)) // compresses to ~1 KB
	_, _, err := SpoolSnapshot(bytes.NewReader(snap), 64<<10)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized snapshot: %v", err)
	}
}

func TestSpoolSnapshot_SizeMismatchIsBadRequest(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(snapshotMagic))
	json.NewEncoder(zw).Encode(&raft.SnapshotMeta{Version: 1, Size: 99})
	zw.Write([]byte{1, 2, 3})
	zw.Close()
	_, _, err := SpoolSnapshot(&buf, MaxSnapshotBytes)
	if ErrorCode(err) != 400 {
		t.Fatalf("size mismatch: %v", err)
	}
}
