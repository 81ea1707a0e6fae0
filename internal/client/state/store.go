package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// FileName is the database file inside the state dir.
const FileName = "client.db"

var (
	bucketAllocs = []byte("allocs")
	bucketTasks  = []byte("tasks")
	keyAlloc     = []byte("alloc")
	keyDeploy    = []byte("deploy")
	keyState     = []byte("state")
	keyHandle    = []byte("handle")
)

// ErrClosed is returned after Close.
var ErrClosed = errors.New("client state store is closed")

// Store is the client's bbolt database. It is safe for concurrent use.
//
// Writes go through bbolt's Batch: the writes of many alloc and task
// runners at once (a start, a drain, a shutdown of thousands of allocs)
// share one transaction and one fsync instead of queueing for one each,
// which took a client with 2,000 allocs 26 s to stop. Every write is
// idempotent, as Batch may run one twice.
type Store struct {
	db      *bolt.DB
	discard atomic.Bool // DiscardWrites was called
}

// batch runs a write in a shared transaction, unless writes are discarded.
func (s *Store) batch(fn func(*bolt.Tx) error) error {
	if s.discard.Load() {
		return nil
	}
	return s.db.Batch(fn)
}

// Sync returns once the writes issued before it are committed (bbolt
// runs batches in order): benchmarks wait for a client to settle with it.
func (s *Store) Sync() error { return s.db.Batch(func(*bolt.Tx) error { return nil }) }

// DiscardWrites drops every later alloc and task write: a client whose
// state dies with it (a -dev agent's temporary data dir, tests) skips
// thousands of writes while it kills its tasks.
func (s *Store) DiscardWrites() { s.discard.Store(true) }

// Open opens (creating) the database in dir. The lock timeout keeps a
// second client on the same dir from hanging forever.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("client state dir: %w", err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("open client state: %w", err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketAllocs)
		return err
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }
