package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// writeTxn is a memdb write transaction that remembers what it changed, so
// that finish can bump the index row of every touched table and recompute
// the status of every job whose evals or allocs changed. Write code then
// cannot forget either.
type writeTxn struct {
	*memdb.Txn
	index   uint64
	touched map[string]bool
	// jobs whose status may have changed in this transaction.
	jobs map[structs.NamespacedID]bool
	// liveAllocs holds a live alloc this write stored for each job, which
	// tells refreshJobStatus the job runs without scanning its allocs.
	liveAllocs map[structs.NamespacedID]*structs.Allocation
	// evalsDeleted makes a job left with no evals and allocs dead rather
	// than pending: it had work, which was garbage collected.
	evalsDeleted bool
	// interner and nodeShare are the store's; allocShare is this
	// transaction's.
	interner   *interner
	nodeShare  *nodeShare
	allocShare *allocShare
	// usage holds the node usages this transaction changed (node_usage.go).
	usage map[string]*structs.NodeUsage
	// rows answers by-ID reads of allocs and node usages (txn_rows.go).
	rows *txnRows
}

func newWriteTxn(db *memdb.MemDB, index uint64, in *interner, ns *nodeShare) *writeTxn {
	txn := db.Txn(true)
	return &writeTxn{
		interner:  in,
		nodeShare: ns,
		Txn:       txn,
		index:     index,
		touched:   map[string]bool{},
		jobs:      map[structs.NamespacedID]bool{},
		rows:      newTxnRows(db),
	}
}

// insert stores obj and marks its table as touched.
func (tx *writeTxn) insert(table string, obj any) error {
	if table == TableAllocs {
		a := obj.(*structs.Allocation)
		old, err := tx.allocByID(a.ID)
		if err != nil {
			return err
		}
		return tx.insertAlloc(a, old)
	}
	return tx.insertRow(table, obj)
}

// insertAlloc stores a, replacing old, the stored alloc of its ID (nil if
// none), and counts the change into the node usages.
func (tx *writeTxn) insertAlloc(a, old *structs.Allocation) error {
	if err := tx.countAllocWrite(a, old); err != nil {
		return err
	}
	return tx.insertRow(TableAllocs, a)
}

func (tx *writeTxn) insertRow(table string, obj any) error {
	if err := tx.Insert(table, obj); err != nil {
		return fmt.Errorf("%s insert failed: %w", table, err)
	}
	tx.rows.wrote(table, obj, false)
	tx.touched[table] = true
	return nil
}

// remove deletes obj and marks its table as touched.
func (tx *writeTxn) remove(table string, obj any) error {
	if table == TableAllocs {
		if err := tx.countAllocDelete(obj.(*structs.Allocation)); err != nil {
			return err
		}
	}
	if err := tx.Delete(table, obj); err != nil {
		return fmt.Errorf("%s delete failed: %w", table, err)
	}
	tx.rows.wrote(table, obj, true)
	tx.touched[table] = true
	return nil
}

// checkJob queues the job's status for recomputation at commit.
func (tx *writeTxn) checkJob(namespace, jobID string) {
	if jobID != "" {
		tx.jobs[structs.NamespacedID{Namespace: namespace, ID: jobID}] = true
	}
}

// finish recomputes job statuses and then writes the index rows; statuses
// come first because they may touch the jobs table.
func (tx *writeTxn) finish() error {
	for id := range tx.jobs {
		if err := tx.refreshJobStatus(id); err != nil {
			return err
		}
	}
	if err := tx.flushNodeUsage(); err != nil {
		return err
	}
	for table := range tx.touched {
		if err := tx.Insert(TableIndex, &IndexEntry{Key: table, Value: tx.index}); err != nil {
			return fmt.Errorf("index update failed: %w", err)
		}
	}
	return nil
}
