package state

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
