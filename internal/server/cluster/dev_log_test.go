package cluster

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/raft"
)

// TestDevLog_SnapshotsByBytes: the dev log asks for a snapshot once its
// entries pass the budget, not before, one at a time, and counts what
// compaction deletes.
func TestDevLog_SnapshotsByBytes(t *testing.T) {
	d := newDevLog(raft.NewInmemStore(), &devSnapshots{})
	asked := make(chan struct{}, 10)
	release := make(chan struct{})
	d.start(func() error {
		asked <- struct{}{}
		<-release
		return d.DeleteRange(1, 8) // as raft's compaction would
	})
	entry := func(i uint64) *raft.Log { return &raft.Log{Index: i, Data: make([]byte, devLogMinBytes/8)} }
	for i := uint64(1); i <= 8; i++ {
		if err := d.StoreLog(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-asked:
		t.Fatal("snapshot asked for at the budget, before passing it")
	default:
	}
	for i := uint64(9); i <= 10; i++ { // past the budget; the second finds one running
		if err := d.StoreLog(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	<-asked
	close(release)
	waitFor(t, func() bool { return d.trigger.Load() == d.bytes.Load()+devLogMinBytes })
	if got, want := d.bytes.Load(), int64(2*devLogMinBytes/8); got != want {
		t.Errorf("bytes held after compaction %d, want %d", got, want)
	}
	if len(asked) != 0 {
		t.Errorf("%d more snapshots asked for while one ran", len(asked))
	}
}

// TestDevSnapshots_KeepsTheNewestComplete: bytes read back equal those
// written across chunks; a canceled or unfinished snapshot never replaces
// the newest complete one.
func TestDevSnapshots_KeepsTheNewestComplete(t *testing.T) {
	s := &devSnapshots{}
	write := func(index uint64, data []byte, finish func(raft.SnapshotSink) error) {
		t.Helper()
		sink, err := s.Create(1, index, 1, raft.Configuration{}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		for p := data; len(p) > 0; p = p[min(len(p), 1000):] {
			if _, err := sink.Write(p[:min(len(p), 1000)]); err != nil {
				t.Fatal(err)
			}
		}
		if err := finish(sink); err != nil {
			t.Fatal(err)
		}
	}
	data := make([]byte, 2*devSnapshotChunk+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	write(10, data, raft.SnapshotSink.Close)
	write(11, []byte("canceled"), raft.SnapshotSink.Cancel)
	write(12, []byte("never closed"), func(raft.SnapshotSink) error { return nil })
	list, _ := s.List()
	if len(list) != 1 || list[0].Index != 10 || list[0].Size != int64(len(data)) {
		t.Fatalf("list %+v", list)
	}
	_, rc, err := s.Open(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	if !bytes.Equal(got, data) {
		t.Errorf("read %d bytes, not the %d written", len(got), len(data))
	}
}

// TestDevSnapshots_DeferredWrittenOnOpen: a sink given the snapshot's
// writer (Defer) holds no bytes; Open writes them, every time, with the
// meta's size, and a newer snapshot replaces it as a written one would.
func TestDevSnapshots_DeferredWrittenOnOpen(t *testing.T) {
	s := &devSnapshots{}
	data := make([]byte, devSnapshotChunk+777)
	for i := range data {
		data[i] = byte(i * 13)
	}
	sink, err := s.Create(1, 20, 1, raft.Configuration{}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	writes := 0
	sink.(*devSnapshotSink).Defer(func(w io.Writer) error {
		writes++
		_, err := w.Write(data)
		return err
	})
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if writes != 0 || len(s.latest.chunks) != 0 {
		t.Fatalf("deferred snapshot written at Close: %d writes, %d chunks", writes, len(s.latest.chunks))
	}
	list, _ := s.List()
	if len(list) != 1 || list[0].Index != 20 {
		t.Fatalf("list %+v", list)
	}
	for range 2 {
		meta, rc, err := s.Open(list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		if !bytes.Equal(got, data) || meta.Size != int64(len(data)) || meta.Index != 20 {
			t.Fatalf("read %d bytes (meta size %d, index %d), want the %d written", len(got), meta.Size, meta.Index, len(data))
		}
	}
	if writes != 2 {
		t.Errorf("%d writes for 2 opens", writes)
	}
}
