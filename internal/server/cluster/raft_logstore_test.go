package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// storeAndReopen writes one entry with the given backend choice, closes
// the store, opens dir again with reopenAs and returns the entry read back.
func storeAndReopen(t *testing.T, dir, backend, reopenAs string) *raft.Log {
	t.Helper()
	s, err := openLogStore(dir, backend, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.logs.StoreLogs([]*raft.Log{{Index: 1, Term: 1, Type: raft.LogCommand, Data: []byte("acked")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.stable.SetUint64([]byte("CurrentTerm"), 7); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = openLogStore(dir, reopenAs, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if term, err := s.stable.GetUint64([]byte("CurrentTerm")); err != nil || term != 7 {
		t.Fatalf("stable store after reopen: term %d, %v; want 7", term, err)
	}
	var got raft.Log
	if err := s.logs.GetLog(1, &got); err != nil {
		t.Fatalf("entry 1 after reopen: %v", err)
	}
	return &got
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func TestLogStore_NewDataDirGetsTheWAL(t *testing.T) {
	dir := t.TempDir()
	got := storeAndReopen(t, dir, "", "")
	if string(got.Data) != "acked" {
		t.Fatalf("entry data %q", got.Data)
	}
	if !exists(filepath.Join(dir, walLogDir)) || exists(filepath.Join(dir, boltLogFile)) {
		t.Fatalf("a new data dir must hold a WAL and no %s", boltLogFile)
	}
}

func TestLogStore_ExistingBoltLogIsKept(t *testing.T) {
	dir := t.TempDir()
	got := storeAndReopen(t, dir, LogStoreBoltDB, "")
	if string(got.Data) != "acked" {
		t.Fatalf("entry data %q", got.Data)
	}
	if exists(filepath.Join(dir, walLogDir)) {
		t.Fatal("reopening a bolt data dir without a backend created a WAL beside it")
	}
}

func TestLogStore_Refusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   string // backend to create the dir with ("" none)
		want    string
		errPart string
	}{
		{"bolt dir asked for wal", LogStoreBoltDB, LogStoreWAL, "operator raft remove-peer"},
		{"wal dir asked for bolt", LogStoreWAL, LogStoreBoltDB, `holds a "wal" log`},
		{"unknown backend", "", "rocksdb", `"rocksdb": must be "wal" or "boltdb"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != "" {
				s, err := openLogStore(dir, tc.setup, hclog.NewNullLogger())
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			before, _ := os.ReadDir(dir)
			_, err := openLogStore(dir, tc.want, hclog.NewNullLogger())
			if err == nil || !strings.Contains(err.Error(), tc.errPart) {
				t.Fatalf("err = %v, want one containing %q", err, tc.errPart)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Fatalf("a refused open changed the data dir: %v -> %v", before, after)
			}
		})
	}
}

func TestLogStore_BothBackendsPresentIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := openLogStore(dir, LogStoreBoltDB, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Mkdir(filepath.Join(dir, walLogDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := openLogStore(dir, "", hclog.NewNullLogger()); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("err = %v, want a refusal naming both logs", err)
	}
}

// A deposed leader's uncommitted tail is truncated by raft (DeleteRange
// up to the last index) before it appends the new leader's entries. The
// log must still open and read after that: raft-wal before v0.4.2 marked
// the truncated segment sealed without writing its index, and the next
// start panicked in raft.NewRaft ("sealed segment has no index block").
func TestLogStore_ReopensAfterTailTruncation(t *testing.T) {
	dir := t.TempDir()
	open := func() *raftStores {
		s, err := openLogStore(dir, "", hclog.NewNullLogger())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	entries := func(from, to, term uint64) []*raft.Log {
		var out []*raft.Log
		for i := from; i <= to; i++ {
			out = append(out, &raft.Log{Index: i, Term: term, Type: raft.LogCommand, Data: []byte{byte(term)}})
		}
		return out
	}
	s := open()
	if err := s.logs.StoreLogs(entries(1, 10, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.logs.DeleteRange(8, 10); err != nil { // the uncommitted tail
		t.Fatal(err)
	}
	if err := s.logs.StoreLogs(entries(8, 12, 2)); err != nil { // the new leader's entries
		t.Fatal(err)
	}
	s.Close()

	s = open()
	defer s.Close()
	for _, want := range []struct{ index, term uint64 }{{1, 1}, {7, 1}, {8, 2}, {12, 2}} {
		var got raft.Log
		if err := s.logs.GetLog(want.index, &got); err != nil {
			t.Fatalf("entry %d after reopen: %v", want.index, err)
		}
		if got.Term != want.term {
			t.Fatalf("entry %d has term %d, want %d", want.index, got.Term, want.term)
		}
	}
	if last, err := s.logs.LastIndex(); err != nil || last != 12 {
		t.Fatalf("last index %d, %v; want 12", last, err)
	}
}
