package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableVariables holds encrypted variables, keyed by (namespace, path).
const TableVariables = "variables"

func variablesTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableVariables, Indexes: map[string]*memdb.IndexSchema{
		"id":     unique("id", nsAnd("Path")),
		"key_id": optional("key_id", str("KeyID")), // a lock without items has no key
	}}
}

// ApplyVariable runs one variable write. The checks (CAS index, lock
// ownership) run here, against the state the entry meets, so of two racing
// writers exactly one wins; the loser gets a *structs.VariableConflictError
// and nothing is written.
func (s *StateStore) ApplyVariable(index uint64, req *structs.VariableApplyRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		in := req.Var
		cur, err := first[structs.VariableEncrypted](tx.Txn, nil, TableVariables, "id", in.Namespace, in.Path)
		if err != nil {
			return err
		}
		if err := checkVariableWrite(req, cur); err != nil {
			return err
		}
		if req.Op == structs.VarOpDelete {
			if cur == nil {
				return nil
			}
			return tx.remove(TableVariables, cur)
		}
		return tx.insert(TableVariables, nextVariable(index, req, cur))
	})
}

// checkVariableWrite refuses a write whose CAS index does not match or
// that a lock held by someone else keeps out.
func checkVariableWrite(req *structs.VariableApplyRequest, cur *structs.VariableEncrypted) error {
	conflict := func(format string, args ...any) error {
		return &structs.VariableConflictError{Current: cur, Reason: fmt.Sprintf(format, args...)}
	}
	if req.CheckIndex != nil {
		have := uint64(0)
		if cur != nil {
			have = cur.ModifyIndex
		}
		if have != *req.CheckIndex {
			return conflict("expected ModifyIndex %d, found %d", *req.CheckIndex, have)
		}
	}
	var lock *structs.VariableLock
	if cur != nil {
		lock = cur.Lock
	}
	switch req.Op {
	case structs.VarOpLockAcquire:
		if lock.Held(req.Now) {
			return conflict("variable is locked")
		}
	case structs.VarOpLockRenew, structs.VarOpLockRelease:
		if lock == nil || lock.ID != req.LockID {
			return conflict("lock ID does not match the variable's lock")
		}
		if req.Op == structs.VarOpLockRenew && req.Now >= lock.ExpiresAt {
			return conflict("lock expired")
		}
	default:
		if lock.Held(req.Now) && lock.ID != req.LockID {
			return conflict("variable is locked")
		}
	}
	return nil
}

// nextVariable is the stored variable after a set or lock operation.
func nextVariable(index uint64, req *structs.VariableApplyRequest, cur *structs.VariableEncrypted) *structs.VariableEncrypted {
	v := req.Var.Copy()
	v.CreateIndex, v.CreateTime = index, req.Now
	v.ModifyIndex, v.ModifyTime = index, req.Now
	if cur != nil {
		v.CreateIndex, v.CreateTime = cur.CreateIndex, cur.CreateTime
		if req.Op != structs.VarOpLockAcquire {
			v.Lock = cur.Lock // only lock operations change the lock
		}
		if req.Op == structs.VarOpLockRenew || req.Op == structs.VarOpLockRelease || len(v.Data) == 0 {
			v.Data, v.KeyID = cur.Data, cur.KeyID // lock operations without items keep them
		}
	}
	switch req.Op {
	case structs.VarOpLockAcquire:
		l := *req.Var.Lock
		l.ID, l.ExpiresAt = req.LockID, req.Now+int64(l.TTL)
		v.Lock = &l
	case structs.VarOpLockRenew:
		l := *cur.Lock
		l.ExpiresAt = req.Now + int64(l.TTL)
		v.Lock = &l
	case structs.VarOpLockRelease:
		v.Lock = nil
	}
	return v
}

// VariableByPath returns one variable, or nil.
func (r reader) VariableByPath(ws memdb.WatchSet, namespace, path string) (*structs.VariableEncrypted, error) {
	return first[structs.VariableEncrypted](r.txn(), ws, TableVariables, "id", namespace, path)
}

// Variables lists the variables of a namespace ("*": all) whose path starts
// with prefix, in (namespace, path) order.
func (r reader) Variables(ws memdb.WatchSet, namespace, prefix string) ([]*structs.VariableEncrypted, error) {
	if namespace == AllNamespaces {
		return listWhere(r.txn(), ws, func(v *structs.VariableEncrypted) bool {
			return len(v.Path) >= len(prefix) && v.Path[:len(prefix)] == prefix
		}, TableVariables, "id")
	}
	return list[structs.VariableEncrypted](r.txn(), ws, TableVariables, "id_prefix", namespace, prefix)
}

// VariablesByKeyID lists the variables sealed with a root key.
func (r reader) VariablesByKeyID(ws memdb.WatchSet, keyID string) ([]*structs.VariableEncrypted, error) {
	return list[structs.VariableEncrypted](r.txn(), ws, TableVariables, "key_id", keyID)
}

// RekeyVariables stores variables sealed again with another key. A
// variable changed (or deleted) since it was read, by ModifyIndex, is
// skipped: that write already sealed it with the active key. Data, KeyID
// and ModifyIndex move; the items, lock and CAS history stay.
func (s *StateStore) RekeyVariables(index uint64, vars []*structs.VariableEncrypted) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, in := range vars {
			cur, err := first[structs.VariableEncrypted](tx.Txn, nil, TableVariables, "id", in.Namespace, in.Path)
			if err != nil {
				return err
			}
			if cur == nil || cur.ModifyIndex != in.ModifyIndex {
				continue
			}
			c := cur.Copy()
			c.Data, c.KeyID, c.ModifyIndex = append([]byte(nil), in.Data...), in.KeyID, index
			if err := tx.insert(TableVariables, c); err != nil {
				return err
			}
		}
		return nil
	})
}
