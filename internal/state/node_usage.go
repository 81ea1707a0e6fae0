package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableNodeUsage holds one structs.NodeUsage per node ID with live allocs:
// what they use, summed. It is derived state: every alloc insert and delete
// updates it in the same transaction (countAllocWrite, countAllocDelete,
// called by writeTxn.insert and remove), Restore rebuilds it from the
// restored allocs, and it is never persisted nor given an index row, so
// snapshots and blocking queries are as they were without it.
const TableNodeUsage = "node_usage"

func nodeUsageTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableNodeUsage, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", ixUsageNodeID),
	}}
}

// NodeUsage returns the summed usage of the node's live allocs, or nil when
// it has none. The value is shared: never modify it.
func (r reader) NodeUsage(ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error) {
	return nodeUsage(r.txn(), ws, nodeID)
}

func nodeUsage(txn *memdb.Txn, ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error) {
	return first[structs.NodeUsage](txn, ws, TableNodeUsage, "id", nodeID)
}

// countAllocWrite updates the usage of the nodes a, about to replace old
// (nil for a new alloc), leaves and joins.
func (tx *writeTxn) countAllocWrite(a, old *structs.Allocation) error {
	wasLive := old != nil && old.NodeID != "" && !old.TerminalStatus()
	if wasLive && old.NodeID != a.NodeID {
		u, err := tx.usageToWrite(old.NodeID)
		if err != nil {
			return err
		}
		u.Remove(old.ID)
		wasLive = false
	}
	if a.NodeID == "" {
		return nil
	}
	switch live := !a.TerminalStatus(); {
	case live:
		u, err := tx.usageToWrite(a.NodeID)
		if err != nil {
			return err
		}
		u.Insert(a)
	case wasLive:
		u, err := tx.usageToWrite(a.NodeID)
		if err != nil {
			return err
		}
		u.Remove(a.ID)
	}
	return nil
}

// countAllocDelete updates the usage of the node of a stored alloc about to
// be deleted.
func (tx *writeTxn) countAllocDelete(a *structs.Allocation) error {
	if a.NodeID == "" || a.TerminalStatus() {
		return nil
	}
	u, err := tx.usageToWrite(a.NodeID)
	if err != nil {
		return err
	}
	u.Remove(a.ID)
	return nil
}

// usageToWrite returns this transaction's own copy of the node's usage,
// copying the stored one on first use; flushNodeUsage stores the copies.
func (tx *writeTxn) usageToWrite(nodeID string) (*structs.NodeUsage, error) {
	if u, ok := tx.usage[nodeID]; ok {
		return u, nil
	}
	stored, err := tx.storedNodeUsage(nodeID)
	if err != nil {
		return nil, err
	}
	u := &structs.NodeUsage{NodeID: nodeID}
	if stored != nil {
		u = stored.Clone()
	}
	if tx.usage == nil {
		tx.usage = map[string]*structs.NodeUsage{}
	}
	tx.usage[nodeID] = u
	return u, nil
}

// flushNodeUsage stores the usages this transaction changed; a node left
// without live allocs loses its row.
func (tx *writeTxn) flushNodeUsage() error {
	for nodeID, u := range tx.usage {
		if !u.Empty() {
			if err := tx.Insert(TableNodeUsage, u); err != nil {
				return err
			}
			tx.rows.wrote(TableNodeUsage, u, false)
			continue
		}
		stored, err := tx.storedNodeUsage(nodeID)
		if err != nil {
			return err
		}
		if stored != nil {
			if err := tx.Delete(TableNodeUsage, stored); err != nil {
				return err
			}
			tx.rows.wrote(TableNodeUsage, stored, true)
		}
	}
	tx.usage = nil
	return nil
}

// rebuildNodeUsage computes every node's usage from the restored allocs.
func rebuildNodeUsage(txn *restoreTxn) error {
	it, err := txn.Get(TableAllocs, "id")
	if err != nil {
		return err
	}
	byNode := map[string]*structs.NodeUsage{}
	var order []string
	for raw := it.Next(); raw != nil; raw = it.Next() {
		a := raw.(*structs.Allocation)
		if a.NodeID == "" || a.TerminalStatus() {
			continue
		}
		u := byNode[a.NodeID]
		if u == nil {
			u = &structs.NodeUsage{NodeID: a.NodeID}
			byNode[a.NodeID] = u
			order = append(order, a.NodeID)
		}
		u.Insert(a) // in ID order: always an append
	}
	for _, id := range order {
		if err := txn.insert(TableNodeUsage, byNode[id]); err != nil {
			return err
		}
	}
	return nil
}
