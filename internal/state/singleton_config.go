package state

import (
	"github.com/hashicorp/go-memdb"
)

// singletonConfig is a table that holds one configuration row (the
// scheduler's, autopilot's), replaced whole, optionally check-and-set on
// its ModifyIndex.
type singletonConfig[T any] struct {
	table string
	copy  func(*T) *T
	// indexes points at the row's CreateIndex and ModifyIndex.
	indexes func(*T) (create, modify *uint64)
}

func (c singletonConfig[T]) schema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: c.table, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", singletonIndex{}),
	}}
}

// set writes cfg at index if cidx is nil or equals the stored row's
// ModifyIndex (0: none stored). It reports whether it wrote; a failed
// check writes nothing and is not an error.
func (c singletonConfig[T]) set(s *StateStore, index uint64, cfg *T, cidx *uint64) (bool, error) {
	var ok bool
	err := s.write(index, func(tx *writeTxn) error {
		existing, err := c.get(tx.Txn, nil)
		if err != nil {
			return err
		}
		var current, created uint64 = 0, tx.index
		if existing != nil {
			create, modify := c.indexes(existing)
			current, created = *modify, *create
		}
		if cidx != nil && *cidx != current {
			return nil
		}
		row := c.copy(cfg)
		create, modify := c.indexes(row)
		*create, *modify = created, tx.index
		ok = true
		return tx.insert(c.table, row)
	})
	return ok, err
}

// get returns the stored row, or nil if none was ever written.
func (c singletonConfig[T]) get(txn *memdb.Txn, ws memdb.WatchSet) (*T, error) {
	return first[T](txn, ws, c.table, "id")
}
