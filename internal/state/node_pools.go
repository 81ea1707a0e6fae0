package state

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// TableNodePools holds the node pools written through raft or created by
// a node registering into them. The built-in "all" and "default" are
// never stored: reads add them, so every server has them without an entry.
const TableNodePools = "node_pools"

func nodePoolsTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableNodePools, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", str("Name")),
	}}
}

// UpsertNodePools creates or replaces pools, keeping each one's CreateIndex.
func (s *StateStore) UpsertNodePools(index uint64, pools []*structs.NodePool) error {
	return s.write(index, func(tx *writeTxn) error {
		return upsertKeepingCreate(tx, TableNodePools, pools, func(p *structs.NodePool) string { return p.Name }, nodePoolIndexes)
	})
}

// ensureNodePool creates the pool a node registers into when it does not
// exist yet (deterministic: it depends only on the state).
func (tx *writeTxn) ensureNodePool(name string) error {
	if name == "" || structs.IsBuiltinNodePool(name) {
		return nil
	}
	existing, err := first[structs.NodePool](tx.Txn, nil, TableNodePools, "id", name)
	if err != nil || existing != nil {
		return err
	}
	return tx.insert(TableNodePools, &structs.NodePool{Name: name, CreateIndex: tx.index, ModifyIndex: tx.index})
}

// DeleteNodePools deletes pools; all or none. Built-ins, unknown pools and
// pools that nodes or jobs still use are refused.
func (s *StateStore) DeleteNodePools(index uint64, names []string) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, name := range names {
			if err := nodePoolDeletable(tx.Txn, name); err != nil {
				return err
			}
			p, _ := first[structs.NodePool](tx.Txn, nil, TableNodePools, "id", name)
			if err := tx.remove(TableNodePools, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// NodePoolDeletable says why a pool cannot be deleted (nil when it can).
func (r reader) NodePoolDeletable(name string) error { return nodePoolDeletable(r.txn(), name) }

func nodePoolDeletable(txn *memdb.Txn, name string) error {
	if structs.IsBuiltinNodePool(name) {
		return fmt.Errorf("node pool %q is built in and cannot be deleted", name)
	}
	p, err := first[structs.NodePool](txn, nil, TableNodePools, "id", name)
	if err != nil {
		return err
	}
	if p == nil {
		return errNotFoundf("node pool %q", name)
	}
	nodes, err := list[structs.Node](txn, nil, TableNodes, "id")
	if err != nil {
		return err
	}
	if n := countWhere(nodes, func(n *structs.Node) bool { return n.NodePool == name }); n > 0 {
		return fmt.Errorf("node pool %q has %d nodes", name, n)
	}
	jobs, err := list[structs.Job](txn, nil, TableJobs, "id")
	if err != nil {
		return err
	}
	if n := countWhere(jobs, func(j *structs.Job) bool { return j.NodePool == name }); n > 0 {
		return fmt.Errorf("node pool %q has %d jobs", name, n)
	}
	return nil
}

func countWhere[T any](items []*T, pred func(*T) bool) int {
	n := 0
	for _, it := range items {
		if pred(it) {
			n++
		}
	}
	return n
}

// NodePoolByName returns a pool (built-ins included), nil when absent.
func (r reader) NodePoolByName(ws memdb.WatchSet, name string) (*structs.NodePool, error) {
	for _, b := range structs.BuiltinNodePools() {
		if b.Name == name {
			return b, nil
		}
	}
	return first[structs.NodePool](r.txn(), ws, TableNodePools, "id", name)
}

// NodePools returns the pools whose name starts with prefix, by name,
// built-ins included.
func (r reader) NodePools(ws memdb.WatchSet, prefix string) ([]*structs.NodePool, error) {
	stored, err := list[structs.NodePool](r.txn(), ws, TableNodePools, "id")
	if err != nil {
		return nil, err
	}
	out := append(structs.BuiltinNodePools(), stored...)
	slices.SortFunc(out, func(a, b *structs.NodePool) int { return strings.Compare(a.Name, b.Name) })
	return slices.DeleteFunc(out, func(p *structs.NodePool) bool { return !strings.HasPrefix(p.Name, prefix) }), nil
}

func nodePoolIndexes(r *structs.NodePool) (create, modify *uint64) {
	return &r.CreateIndex, &r.ModifyIndex
}
