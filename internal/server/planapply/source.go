package planapply

import (
	"context"
	"fmt"

	"github.com/drover-project/drover/internal/state"
)

// StoreSource adapts a state store whose writes are applied synchronously
// (the simulator's and tests' fake raft) to StateSource. A real server,
// whose FSM may lag its raft log, supplies its own waiting implementation.
type StoreSource struct {
	Store *state.StateStore
}

// SnapshotMinIndex returns a snapshot, or an error if the store has not
// reached index: with synchronous writes that is a bug, not a wait.
func (s StoreSource) SnapshotMinIndex(ctx context.Context, index uint64) (*state.StateSnapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	snap := s.Store.Snapshot()
	if got := snap.LatestIndex(); got < index {
		return nil, fmt.Errorf("state store at index %d, want at least %d", got, index)
	}
	return snap, nil
}
