package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

var schedulerConfigRow = singletonConfig[structs.SchedulerConfiguration]{
	table: TableSchedulerConfig, copy: (*structs.SchedulerConfiguration).Copy,
	indexes: func(c *structs.SchedulerConfiguration) (*uint64, *uint64) { return &c.CreateIndex, &c.ModifyIndex },
}

func schedulerConfigTable() *memdb.TableSchema { return schedulerConfigRow.schema() }

// SchedulerSetConfig replaces the scheduler configuration.
func (s *StateStore) SchedulerSetConfig(index uint64, cfg *structs.SchedulerConfiguration) error {
	_, err := schedulerConfigRow.set(s, index, cfg, nil)
	return err
}

// SchedulerCASConfig replaces the configuration only if its stored
// ModifyIndex is cidx (0: only if it was never set). It reports whether it
// did; a failed check is not an error and writes nothing.
func (s *StateStore) SchedulerCASConfig(index, cidx uint64, cfg *structs.SchedulerConfiguration) (bool, error) {
	return schedulerConfigRow.set(s, index, cfg, &cidx)
}

// SchedulerConfig returns the stored scheduler configuration, or nil if it
// was never set; callers then use structs.DefaultSchedulerConfiguration().
// The leader is expected to write the default once at establishment.
func (r reader) SchedulerConfig(ws memdb.WatchSet) (*structs.SchedulerConfiguration, error) {
	return schedulerConfigRow.get(r.txn(), ws)
}
