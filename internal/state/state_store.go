package state

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// ErrNotFound is returned by writes that address an object that is absent.
var ErrNotFound = errors.New("not found")

// ErrEligibleWhileDraining is returned when a draining node is marked
// eligible: a drain must be ended (UpdateNodeDrain) first.
var ErrEligibleWhileDraining = errors.New("cannot mark a draining node eligible")

// StateStore is the live state. Reads see the latest committed write.
type StateStore struct {
	reader

	// mu guards db and abandonCh, which Restore replaces.
	mu        sync.RWMutex
	db        *memdb.MemDB
	abandonCh chan struct{}

	// writeMu makes a write and a Restore exclusive, so no write can land in
	// a database that is being swapped out.
	writeMu sync.Mutex
	// interner shares repeated strings between stored objects; guarded by
	// writeMu.
	interner interner
	// nodeShare shares equal attributes, resources and drivers between
	// stored nodes; guarded by writeMu.
	nodeShare nodeShare

	// onCommit, when set, receives every committed write's changes (the
	// event stream is built from them). Guarded by writeMu.
	onCommit CommitObserver

	// batch is the open write batch (BeginBatch), nil when none.
	batch atomic.Pointer[Batch]
}

// CommitObserver receives the objects a committed write changed, in the
// order memdb reports them, with the write's raft index (the writes of a
// Batch each on their own, in order, once the batch commits). It runs under the
// store's write lock, so it must be quick and must not write to the store.
type CommitObserver func(index uint64, changes memdb.Changes)

// SetCommitObserver installs (or with nil removes) the commit observer.
func (s *StateStore) SetCommitObserver(fn CommitObserver) {
	s.writeMu.Lock()
	s.onCommit = fn
	s.writeMu.Unlock()
}

// StateSnapshot is a point-in-time, read-only view of the store. It is
// cheap to take and is unaffected by later writes.
type StateSnapshot struct {
	reader
}

// NewStateStore returns an empty store.
func NewStateStore() (*StateStore, error) {
	db, err := memdb.NewMemDB(stateSchema())
	if err != nil {
		return nil, err
	}
	s := &StateStore{db: db, abandonCh: make(chan struct{})}
	s.reader = reader{db: s.currentDB, nodes: &nodeSetCache{}}
	return s, nil
}

func (s *StateStore) currentDB() *memdb.MemDB {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db
}

// Snapshot returns a read-only view of the state as of now.
func (s *StateStore) Snapshot() *StateSnapshot {
	db := s.currentDB().Snapshot()
	return &StateSnapshot{reader: reader{db: func() *memdb.MemDB { return db }, nodes: s.nodes}}
}

// AbandonCh is closed when a Restore replaces the store's contents. Watch
// channels of the old contents never fire again, so blocking queries must
// also watch this channel and re-run when it closes.
func (s *StateStore) AbandonCh() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.abandonCh
}

// swap installs a restored database and abandons the old one.
func (s *StateStore) swap(db *memdb.MemDB) {
	s.mu.Lock()
	old := s.abandonCh
	s.db = db
	s.abandonCh = make(chan struct{})
	s.mu.Unlock()
	close(old)
}

// write runs fn in one write transaction at raft index idx and commits it
// only if fn and the follow-up bookkeeping (job statuses, index rows)
// succeed; on error nothing is written.
//
// evals are upserted in the same transaction: a raft entry that carries a
// change and the evals it causes becomes visible as one, or not at all.
func (s *StateStore) write(idx uint64, fn func(tx *writeTxn) error, evals ...*structs.Evaluation) error {
	if b := s.activeBatch(); b != nil {
		return b.write(idx, fn, evals...)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx := newWriteTxn(s.currentDB(), idx, &s.interner, &s.nodeShare)
	defer tx.Abort()
	if s.onCommit != nil {
		tx.TrackChanges()
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.upsertEvals(evals); err != nil {
		return err
	}
	if err := tx.finish(); err != nil {
		return err
	}
	tx.Commit()
	if s.onCommit != nil {
		s.onCommit(idx, tx.Changes())
	}
	return nil
}

// errNotFoundf wraps ErrNotFound with what was not found.
func errNotFoundf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrNotFound)
}
