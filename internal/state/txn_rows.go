package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// txnRows answers a write transaction's by-ID reads of allocs, node
// usages, evals and jobs without reading through the transaction.
//
// A read of an index that the memdb transaction has modified clones that
// index's radix transaction (go-memdb's readableIndex), and the clone
// drops the set of radix nodes the transaction already owns
// (go-immutable-radix Txn.Clone): the next insert into that index copies
// its whole path from the root again, with a new mutation channel and a
// new entry in a new writable-node cache for every node. Every alloc
// write read the stored alloc, every node usage change the stored usage
// and every eval write the stored eval just before writing the same
// index, so nearly every insert paid for the full path.
//
// So the rows this transaction wrote are kept here by ID (nil: deleted),
// and a row it did not write is read from base, a read transaction of the
// state the write transaction started from, which holds the same row:
// every write of these tables goes through writeTxn.insertRow,
// writeTxn.remove and flushNodeUsage, which record it here. One txnRows
// lives as long as its memdb transaction (a Batch shares one between its
// writes).
type txnRows struct {
	base   *memdb.Txn
	allocs map[string]*structs.Allocation
	usage  map[string]*structs.NodeUsage
	evals  map[string]*structs.Evaluation
	jobs   map[structs.NamespacedID]*structs.Job
}

// newTxnRows starts the rows of a write transaction just opened on db
// (under the store's write lock, so db's root is the one it started from).
func newTxnRows(db *memdb.MemDB) *txnRows {
	return &txnRows{base: db.Txn(false), allocs: map[string]*structs.Allocation{}, usage: map[string]*structs.NodeUsage{},
		evals: map[string]*structs.Evaluation{}, jobs: map[structs.NamespacedID]*structs.Job{}}
}

// allocByID is the stored alloc as this transaction left it, or nil.
func (tx *writeTxn) allocByID(id string) (*structs.Allocation, error) {
	if a, ok := tx.rows.allocs[id]; ok {
		return a, nil
	}
	return allocByID(tx.rows.base, nil, id)
}

// storedNodeUsage is the stored usage row as this transaction left it, or
// nil.
func (tx *writeTxn) storedNodeUsage(nodeID string) (*structs.NodeUsage, error) {
	if u, ok := tx.rows.usage[nodeID]; ok {
		return u, nil
	}
	return nodeUsage(tx.rows.base, nil, nodeID)
}

// evalByID is the stored eval as this transaction left it, or nil.
func (tx *writeTxn) evalByID(id string) (*structs.Evaluation, error) {
	if e, ok := tx.rows.evals[id]; ok {
		return e, nil
	}
	return evalByID(tx.rows.base, nil, id)
}

// jobByID is the stored job as this transaction left it, or nil.
func (tx *writeTxn) jobByID(namespace, id string) (*structs.Job, error) {
	if j, ok := tx.rows.jobs[structs.NamespacedID{Namespace: namespace, ID: id}]; ok {
		return j, nil
	}
	return jobByID(tx.rows.base, nil, namespace, id)
}

// wrote records a row this transaction inserted (deleted: removed).
func (r *txnRows) wrote(table string, obj any, deleted bool) {
	switch table {
	case TableAllocs:
		a := obj.(*structs.Allocation)
		r.allocs[a.ID] = unlessDeleted(a, deleted)
	case TableNodeUsage:
		u := obj.(*structs.NodeUsage)
		r.usage[u.NodeID] = unlessDeleted(u, deleted)
	case TableEvals:
		e := obj.(*structs.Evaluation)
		r.evals[e.ID] = unlessDeleted(e, deleted)
	case TableJobs:
		j := obj.(*structs.Job)
		r.jobs[structs.NamespacedID{Namespace: j.Namespace, ID: j.ID}] = unlessDeleted(j, deleted)
	}
}

// unlessDeleted is the row a write left: obj, or nil for a removal.
func unlessDeleted[T any](obj *T, deleted bool) *T {
	if deleted {
		return nil
	}
	return obj
}
