package state

import (
	"github.com/hashicorp/go-memdb"
)

// copyable is a stored row type: rows are immutable, so a write stores a
// copy.
type copyable[T any] interface {
	*T
	Copy() *T
}

// upsertKeepingCreate stores a copy of each row at the write's index,
// keeping the CreateIndex of the row it replaces (found by key in table's
// "id" index). indexes points at a row's CreateIndex and ModifyIndex.
func upsertKeepingCreate[T any, P copyable[T]](tx *writeTxn, table string, rows []P,
	key func(*T) string, indexes func(*T) (create, modify *uint64)) error {
	for _, row := range rows {
		existing, err := first[T](tx.Txn, nil, table, "id", key(row))
		if err != nil {
			return err
		}
		c := P(row).Copy()
		create, modify := indexes(c)
		*create, *modify = tx.index, tx.index
		if existing != nil {
			prev, _ := indexes(existing)
			*create = *prev
		}
		if err := tx.insert(table, c); err != nil {
			return err
		}
	}
	return nil
}

// deleteOfJob removes the row of table with the given id (none is no
// error) and queues a status check of the job it belonged to.
func deleteOfJob[T any](tx *writeTxn, table string, byID func(*memdb.Txn, memdb.WatchSet, string) (*T, error),
	id string, jobOf func(*T) (namespace, jobID string)) error {
	row, err := byID(tx.Txn, nil, id)
	if err != nil || row == nil {
		return err
	}
	tx.checkJob(jobOf(row))
	return tx.remove(table, row)
}
