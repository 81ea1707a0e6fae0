package state

import (
	"errors"
	"reflect"
	"unsafe"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// Batch is one memdb write transaction shared by consecutive writes (the
// FSM applies a batch of committed raft entries in it: raft's
// BatchingFSM). Each write still runs at its own raft index with its own
// bookkeeping (job statuses, index rows), so the committed state is the
// one the writes would have left one transaction each; only the
// intermediate states are never visible to readers, and watchers wake once
// per batch.
//
// A write that fails poisons the batch: memdb cannot undo part of a
// transaction, so the owner must Abort and apply the writes again one by
// one (Failed says so). While a batch is open its owner is the store's only
// writer (every write comes from the FSM): writes from the owner's
// goroutine go into the batch, and the store's write lock is held until
// Commit or Abort.
type Batch struct {
	s      *StateStore
	tx     *memdb.Txn
	rows   *txnRows // shared by the writes, like tx
	failed error
	// writes holds each write's changes, in order, for the commit
	// observer; len(writes) counts the writes when there is none.
	writes []committedWrite
	count  int
}

type committedWrite struct {
	index   uint64
	changes memdb.Changes
}

// errBatchFailed refuses writes after one failed: the batch must be
// aborted.
var errBatchFailed = errors.New("state: write batch already failed")

// BeginBatch opens a write batch. The caller must end it with Commit or
// Abort.
func (s *StateStore) BeginBatch() *Batch {
	s.writeMu.Lock()
	db := s.currentDB()
	b := &Batch{s: s, tx: db.Txn(true)}
	b.rows = newTxnRows(db)
	if s.onCommit != nil {
		b.tx.TrackChanges()
	}
	s.batch.Store(b)
	return b
}

// View reads the batch's uncommitted state: what the writes so far left.
// It must only be used by the batch's owner, and not after Commit or
// Abort.
func (b *Batch) View() *StateSnapshot {
	return &StateSnapshot{reader: reader{wtx: b.tx, nodes: &nodeSetCache{}}}
}

// Failed returns the error of the write that poisoned the batch, or nil.
func (b *Batch) Failed() error { return b.failed }

// Writes returns how many writes the batch holds so far.
func (b *Batch) Writes() int { return b.count }

// Commit makes every write of the batch visible at once and hands each
// write's changes, in order and with its index, to the commit observer.
func (b *Batch) Commit() {
	s := b.s
	s.batch.Store(nil)
	defer s.writeMu.Unlock()
	b.tx.Commit()
	if s.onCommit != nil {
		for _, w := range b.writes {
			s.onCommit(w.index, w.changes)
		}
	}
}

// Abort drops every write of the batch.
func (b *Batch) Abort() {
	b.s.batch.Store(nil)
	b.tx.Abort()
	b.s.writeMu.Unlock()
}

// write is StateStore.write inside the batch: the same steps, without the
// commit.
func (b *Batch) write(idx uint64, fn func(tx *writeTxn) error, evals ...*structs.Evaluation) error {
	if b.failed != nil {
		return errBatchFailed
	}
	s := b.s
	tx := &writeTxn{Txn: b.tx, index: idx, touched: map[string]bool{}, jobs: map[structs.NamespacedID]bool{},
		interner: &s.interner, nodeShare: &s.nodeShare, rows: b.rows}
	err := fn(tx)
	if err == nil {
		err = tx.upsertEvals(evals)
	}
	if err == nil {
		err = tx.finish()
	}
	if err != nil {
		b.failed = err
		return err
	}
	b.count++
	if s.onCommit != nil {
		b.writes = append(b.writes, committedWrite{index: idx, changes: b.tx.Changes()})
		restartChanges(b.tx)
	}
	return nil
}

// activeBatch returns the open batch, if any.
func (s *StateStore) activeBatch() *Batch { return s.batch.Load() }

// restartChanges makes the transaction's change tracking start afresh, so
// that Changes reports the next write's changes alone, deduplicated as
// memdb does for a transaction of its own. memdb has no API for this: the
// unexported field is set through reflection (go-memdb v1.3.5;
// TestBatch_ChangesArePerWrite fails if the field goes away).
func restartChanges(tx *memdb.Txn) {
	f := reflect.ValueOf(tx).Elem().FieldByName("changes")
	*(*memdb.Changes)(unsafe.Pointer(f.UnsafeAddr())) = make(memdb.Changes, 0, 1)
}
