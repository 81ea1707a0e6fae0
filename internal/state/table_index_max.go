package state

// MaxTableIndex returns the highest of tables' last modifying raft
// indexes, read in one transaction: the index a list read of those tables
// answers at. Any write to one of them raises it past every index
// before, so an unchanged value means unchanged tables.
func (r reader) MaxTableIndex(tables ...string) uint64 {
	txn := r.txn()
	var out uint64
	for _, t := range tables {
		out = max(out, tableIndex(txn, t))
	}
	return out
}
