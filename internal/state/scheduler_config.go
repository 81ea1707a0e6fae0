package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// SchedulerSetConfig replaces the scheduler configuration.
func (s *StateStore) SchedulerSetConfig(index uint64, cfg *structs.SchedulerConfiguration) error {
	return s.write(index, func(tx *writeTxn) error {
		_, err := tx.setSchedulerConfig(cfg, nil)
		return err
	})
}

// SchedulerCASConfig replaces the configuration only if its stored
// ModifyIndex is cidx (0: only if it was never set). It reports whether it
// did; a failed check is not an error and writes nothing.
func (s *StateStore) SchedulerCASConfig(index, cidx uint64, cfg *structs.SchedulerConfiguration) (bool, error) {
	var ok bool
	err := s.write(index, func(tx *writeTxn) error {
		var err error
		ok, err = tx.setSchedulerConfig(cfg, &cidx)
		return err
	})
	return ok, err
}

// setSchedulerConfig writes cfg, if cidx is nil or matches the stored
// config's ModifyIndex.
func (tx *writeTxn) setSchedulerConfig(cfg *structs.SchedulerConfiguration, cidx *uint64) (bool, error) {
	existing, err := schedulerConfig(tx.Txn, nil)
	if err != nil {
		return false, err
	}
	var current uint64
	if existing != nil {
		current = existing.ModifyIndex
	}
	if cidx != nil && *cidx != current {
		return false, nil
	}
	c := cfg.Copy()
	c.CreateIndex, c.ModifyIndex = tx.index, tx.index
	if existing != nil {
		c.CreateIndex = existing.CreateIndex
	}
	return true, tx.insert(TableSchedulerConfig, c)
}

// SchedulerConfig returns the stored scheduler configuration, or nil if it
// was never set; callers then use structs.DefaultSchedulerConfiguration().
// The leader is expected to write the default once at establishment.
func (r reader) SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	return schedulerConfig(r.txn(), ws)
}

func schedulerConfig(txn *memdb.Txn, ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	return first[structs.SchedulerConfiguration](txn, ws, TableSchedulerConfig, "id")
}
