package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"
)

// reader implements every read once, for both the live store and
// snapshots: each call opens a read transaction on whatever database db
// returns (the current one for the store, a frozen one for a snapshot).
type reader struct {
	db    func() *memdb.MemDB
	nodes *nodeSetCache // shared by the store and its snapshots
	// wtx, when set, is an open write batch's transaction (Batch.View):
	// reads see its uncommitted writes.
	wtx *memdb.Txn
}

func (r reader) txn() *memdb.Txn {
	if r.wtx != nil {
		return r.wtx
	}
	return r.db().Txn(false)
}

// IndexEntry is a row of the index table: the last raft index that
// modified a table.
type IndexEntry struct {
	Key   string
	Value uint64
}

// Index returns the last raft index that modified table, 0 if none did.
func (r reader) Index(table string) uint64 {
	return tableIndex(r.txn(), table)
}

// LatestIndex returns the highest raft index applied to any table.
func (r reader) LatestIndex() uint64 {
	it, err := r.txn().Get(TableIndex, "id")
	if err != nil {
		return 0
	}
	var max uint64
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if v := raw.(*IndexEntry).Value; v > max {
			max = v
		}
	}
	return max
}

func tableIndex(txn *memdb.Txn, table string) uint64 {
	raw, err := txn.First(TableIndex, "id", table)
	if err != nil || raw == nil {
		return 0
	}
	return raw.(*IndexEntry).Value
}

// watch adds ch to ws; reads accept a nil ws when they need no watching.
func watch(ws memdb.WatchSet, ch <-chan struct{}) {
	if ws != nil {
		ws.Add(ch)
	}
}

// first returns the object under key in table's index, or nil, watching
// the key.
func first[T any](txn *memdb.Txn, ws memdb.WatchSet, table, index string, args ...any) (*T, error) {
	ch, raw, err := txn.FirstWatch(table, index, args...)
	if err != nil {
		return nil, fmt.Errorf("%s lookup failed: %w", table, err)
	}
	watch(ws, ch)
	if raw == nil {
		return nil, nil
	}
	return raw.(*T), nil
}

// list returns every object matching args in table's index, in index
// order, watching the whole range.
func list[T any](txn *memdb.Txn, ws memdb.WatchSet, table, index string, args ...any) ([]*T, error) {
	return listWhere[T](txn, ws, nil, table, index, args...)
}

// listWhere is list with a filter (nil keeps everything).
func listWhere[T any](txn *memdb.Txn, ws memdb.WatchSet, keep func(*T) bool, table, index string, args ...any) ([]*T, error) {
	it, err := txn.Get(table, index, args...)
	if err != nil {
		return nil, fmt.Errorf("%s lookup failed: %w", table, err)
	}
	watch(ws, it.WatchCh())
	var out []*T
	for raw := it.Next(); raw != nil; raw = it.Next() {
		obj := raw.(*T)
		if keep == nil || keep(obj) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// AllNamespaces is the namespace argument that lists every namespace.
const AllNamespaces = "*"

// listInNamespace returns the objects of table in namespace ns ("*" for
// all), sorted by ID; table has "id" and "namespace" indexes.
func listInNamespace[T any](txn *memdb.Txn, ws memdb.WatchSet, table, ns string) ([]*T, error) {
	if ns == AllNamespaces {
		return list[T](txn, ws, table, "id")
	}
	return list[T](txn, ws, table, "namespace", ns)
}

// listWhereInNamespace lists the rows of table in namespace ns ("*" for
// all), in the order of index, for a table without a "namespace" index.
func listWhereInNamespace[T any](txn *memdb.Txn, ws memdb.WatchSet, ns string, nsOf func(*T) string, table, index string) ([]*T, error) {
	if ns == AllNamespaces {
		return list[T](txn, ws, table, index)
	}
	return listWhere(txn, ws, inNamespace(ns, nsOf), table, index)
}

// inNamespace returns a filter for objects of namespace ns ("*" for all).
func inNamespace[T any](ns string, nsOf func(*T) string) func(*T) bool {
	if ns == AllNamespaces {
		return nil
	}
	return func(o *T) bool { return nsOf(o) == ns }
}
