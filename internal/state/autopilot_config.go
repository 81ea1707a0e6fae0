package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// The autopilot configuration is one raft-stored row, like the scheduler
// configuration: every server holds the same one, so a new leader's
// autopilot runs with what the operator last set.
var autopilotConfigRow = singletonConfig[structs.AutopilotConfig]{
	table: TableAutopilotConfig, copy: (*structs.AutopilotConfig).Copy,
	indexes: func(c *structs.AutopilotConfig) (*uint64, *uint64) { return &c.CreateIndex, &c.ModifyIndex },
}

func autopilotConfigTable() *memdb.TableSchema { return autopilotConfigRow.schema() }

// AutopilotSetConfig replaces the autopilot configuration; with cas only
// if the stored ModifyIndex is cfg.ModifyIndex (0: only if none is
// stored). It reports whether it did; a failed check writes nothing and is
// not an error.
func (s *StateStore) AutopilotSetConfig(index uint64, cfg *structs.AutopilotConfig, cas bool) (bool, error) {
	if !cas {
		return autopilotConfigRow.set(s, index, cfg, nil)
	}
	cidx := cfg.ModifyIndex
	return autopilotConfigRow.set(s, index, cfg, &cidx)
}

// AutopilotConfig returns the stored autopilot configuration, or nil
// before the first leader wrote one.
func (r reader) AutopilotConfig(ws memdb.WatchSet) (*structs.AutopilotConfig, error) {
	return autopilotConfigRow.get(r.txn(), ws)
}
