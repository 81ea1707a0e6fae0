package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableRootKeys is the keyring.
const TableRootKeys = "root_keys"

func rootKeysTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableRootKeys, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("KeyID")),
	}}
}

// UpsertRootKey adds a key; with rotate every other active key becomes
// inactive in the same transaction, so exactly one key is active.
func (s *StateStore) UpsertRootKey(index uint64, key *structs.RootKey, rotate bool) error {
	return s.write(index, func(tx *writeTxn) error {
		if rotate {
			keys, err := list[structs.RootKey](tx.Txn, nil, TableRootKeys, "id")
			if err != nil {
				return err
			}
			for _, k := range keys {
				if k.State != structs.RootKeyStateActive || k.KeyID == key.KeyID {
					continue
				}
				c := k.Copy()
				c.State, c.ModifyIndex = structs.RootKeyStateInactive, index
				if err := tx.insert(TableRootKeys, c); err != nil {
					return err
				}
			}
		}
		c := key.Copy()
		c.CreateIndex, c.ModifyIndex = index, index
		return tx.insert(TableRootKeys, c)
	})
}

// RootKeys lists the keyring in key ID order.
func (r reader) RootKeys(ws memdb.WatchSet) ([]*structs.RootKey, error) {
	return list[structs.RootKey](r.txn(), ws, TableRootKeys, "id")
}

// RootKeyByID returns one key, or nil.
func (r reader) RootKeyByID(ws memdb.WatchSet, id string) (*structs.RootKey, error) {
	return first[structs.RootKey](r.txn(), ws, TableRootKeys, "id", id)
}

// ActiveRootKey returns the key new data is sealed with, or nil before the
// leader created one.
func (r reader) ActiveRootKey(ws memdb.WatchSet) (*structs.RootKey, error) {
	keys, err := r.RootKeys(ws)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.State == structs.RootKeyStateActive {
			return k, nil
		}
	}
	return nil, nil
}

// DeleteRootKey removes a key; an unknown key is not an error (the
// endpoint checked it exists, and replaying the entry must not fail).
func (s *StateStore) DeleteRootKey(index uint64, id string) error {
	return s.write(index, func(tx *writeTxn) error {
		key, err := first[structs.RootKey](tx.Txn, nil, TableRootKeys, "id", id)
		if err != nil || key == nil {
			return err
		}
		return tx.remove(TableRootKeys, key)
	})
}

// SetRootKeyStates moves the named keys to state; unknown keys are
// skipped (a GC may have removed one).
func (s *StateStore) SetRootKeyStates(index uint64, keyIDs []string, state string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, id := range keyIDs {
			k, err := first[structs.RootKey](tx.Txn, nil, TableRootKeys, "id", id)
			if err != nil {
				return err
			}
			if k == nil || k.State == state {
				continue
			}
			c := k.Copy()
			c.State, c.ModifyIndex = state, index
			if err := tx.insert(TableRootKeys, c); err != nil {
				return err
			}
		}
		return nil
	})
}
