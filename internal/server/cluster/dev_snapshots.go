package cluster

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// devSnapshots is a dev server's snapshot store: the newest snapshot, in
// memory. Unlike raft's InmemSnapshotStore it keeps the bytes in fixed
// chunks, not one buffer grown by doubling that kept up to twice the
// snapshot's size, and a snapshot replaces the previous one only once it
// is complete. A dev server snapshots by the size of its log (dev_log.go).
//
// A dev server is alone and in memory: nothing reads its snapshot but an
// operator's snapshot save. So a sink takes the FSM's snapshot unwritten
// when the FSM offers it (Defer): the state store's snapshot is immutable
// and shares its trees with the live state, so holding it costs only the
// paths written since, while the serialised copy cost as much heap again
// as the allocs in it (a million allocs: a 0.8 GB copy, plus the half of
// it the log was allowed to grow to). Open writes it out then, as Persist
// would have at the snapshot's index: the same bytes.
type devSnapshots struct {
	mu     sync.RWMutex
	latest *devSnapshotSink
}

const devSnapshotChunk = 1 << 20

type devSnapshotSink struct {
	store  *devSnapshots
	meta   raft.SnapshotMeta
	chunks [][]byte
	// write, when set (Defer), writes the snapshot's bytes; chunks is
	// then empty and meta.Size unknown (0) until Open.
	write func(io.Writer) error
}

// Defer keeps write in place of the snapshot's bytes; Open calls it. The
// FSM's Persist offers it (an immutable state snapshot).
func (k *devSnapshotSink) Defer(write func(io.Writer) error) { k.write = write }

// Create implements raft.SnapshotStore.
func (s *devSnapshots) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, _ raft.Transport) (raft.SnapshotSink, error) {
	if version != 1 {
		return nil, fmt.Errorf("unsupported snapshot version %d", version)
	}
	return &devSnapshotSink{store: s, meta: raft.SnapshotMeta{
		Version: version, ID: fmt.Sprintf("%d-%d", term, index), Index: index, Term: term,
		Configuration: configuration, ConfigurationIndex: configurationIndex,
	}}, nil
}

// List implements raft.SnapshotStore: the newest snapshot, if any.
func (s *devSnapshots) List() ([]*raft.SnapshotMeta, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.latest == nil {
		return nil, nil
	}
	meta := s.latest.meta
	return []*raft.SnapshotMeta{&meta}, nil
}

// Open implements raft.SnapshotStore.
func (s *devSnapshots) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.latest == nil || s.latest.meta.ID != id {
		return nil, nil, fmt.Errorf("snapshot %s: not found", id)
	}
	snap := s.latest
	if snap.write != nil {
		// Written out for this reader only (raft's Restore checks the
		// size against the meta, so the whole is written first).
		out := &devSnapshotSink{meta: snap.meta}
		out.meta.Size = 0
		if err := snap.write(out); err != nil {
			return nil, nil, fmt.Errorf("snapshot %s: %w", id, err)
		}
		snap = out
	}
	readers := make([]io.Reader, len(snap.chunks))
	for i, c := range snap.chunks {
		readers[i] = bytes.NewReader(c)
	}
	meta := snap.meta
	return &meta, io.NopCloser(io.MultiReader(readers...)), nil
}

// Write implements io.Writer, filling chunks of devSnapshotChunk bytes.
func (k *devSnapshotSink) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(k.chunks) - 1
		if last < 0 || len(k.chunks[last]) == cap(k.chunks[last]) {
			k.chunks = append(k.chunks, make([]byte, 0, devSnapshotChunk))
			last++
		}
		room := cap(k.chunks[last]) - len(k.chunks[last])
		m := min(room, len(p))
		k.chunks[last] = append(k.chunks[last], p[:m]...)
		p = p[m:]
	}
	k.meta.Size += int64(n)
	return n, nil
}

// Close makes the snapshot the newest, dropping the previous one.
func (k *devSnapshotSink) Close() error {
	k.store.mu.Lock()
	defer k.store.mu.Unlock()
	k.store.latest = k
	return nil
}

// ID implements raft.SnapshotSink.
func (k *devSnapshotSink) ID() string { return k.meta.ID }

// Cancel implements raft.SnapshotSink: the snapshot is dropped.
func (k *devSnapshotSink) Cancel() error {
	k.chunks, k.write = nil, nil
	return nil
}
