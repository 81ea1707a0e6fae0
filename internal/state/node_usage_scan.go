package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// EachNodeUsage calls fn with the usage of every node that has live allocs
// (the values NodeUsage returns), in node ID order, until fn returns
// false. It is one read for the whole table: a scheduler that ranks a
// large part of a cluster reads the usages this way instead of opening a
// transaction per node. The values are shared: never modify them.
func (r reader) EachNodeUsage(ws memdb.WatchSet, fn func(*structs.NodeUsage) bool) error {
	it, err := r.txn().Get(TableNodeUsage, "id")
	if err != nil {
		return fmt.Errorf("%s lookup failed: %w", TableNodeUsage, err)
	}
	watch(ws, it.WatchCh())
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if !fn(raw.(*structs.NodeUsage)) {
			break
		}
	}
	return nil
}
