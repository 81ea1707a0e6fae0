package fsm

import (
	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The FSM is a raft.BatchingFSM: raft hands it the entries of one commit
// together and they are applied in one state store write transaction
// (state.Batch), which every server (followers included) pays once per
// batch instead of once per entry.
var _ raft.BatchingFSM = (*FSM)(nil)

// stateView is what the appliers read: the store, or while a batch
// applies, the batch's uncommitted state (what the entries before left).
type stateView interface {
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
	EvalByID(ws memdb.WatchSet, id string) (*structs.Evaluation, error)
	AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error)
	NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error)
}

// applyingBatch holds what ApplyBatch defers to the commit: each entry's
// sink calls, and how many state writes it made (its events).
type applyingBatch struct {
	tx   *state.Batch
	view *state.StateSnapshot
	// hooks are the current entry's deferred sink calls.
	hooks []func()
}

// batchEntry is an applied entry of a batch, waiting for the commit.
type batchEntry struct {
	index  uint64
	typ    structs.MessageType
	cmd    bool
	writes int
	hooks  []func()
}

func (f *FSM) view() stateView {
	if f.batch != nil {
		return f.batch.view
	}
	return f.state
}

// emit runs a sink call now, or when a batch applies, after its commit:
// the sink (the leader's broker) must not see an eval before the state
// holds it.
func (f *FSM) emit(call func()) {
	if f.batch != nil {
		f.batch.hooks = append(f.batch.hooks, call)
		return
	}
	call()
}

// ApplyBatch applies committed entries in one state store transaction.
// Each entry gets the result, index, sink calls and event batch that
// Apply would have given it, in order, and the state is the one Apply
// would have left (TestFSM_ApplyBatchEqualsApplyOneByOne,
// FuzzApplyBatch): appliers read the batch's uncommitted state, sink calls
// and events wait for the commit. An entry whose write fails cannot be
// undone inside the transaction, so the batch is then dropped and applied
// again one entry at a time.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	out := make([]any, len(logs))
	commands := 0
	for _, l := range logs {
		if l.Type == raft.LogCommand && len(l.Data) > 0 {
			commands++
		}
	}
	if commands < 2 {
		for i, l := range logs {
			out[i] = f.Apply(l)
		}
		return out
	}
	tx := f.state.BeginBatch()
	f.batch = &applyingBatch{tx: tx, view: tx.View()}
	entries := make([]batchEntry, len(logs))
	failed := false
	func() {
		defer func() {
			if f.batch != nil && (failed || recover() != nil) {
				// A panic (an unknown entry type) leaves the batch for
				// the one-by-one retry below, which panics again.
				failed = true
			}
			f.batch = nil
		}()
		for i, l := range logs {
			e := batchEntry{index: l.Index}
			if l.Type == raft.LogCommand && len(l.Data) > 0 {
				before := tx.Writes()
				e.cmd, e.typ = true, structs.MessageType(l.Data[0])
				out[i] = f.applyCommand(l)
				e.writes = tx.Writes() - before
				e.hooks, f.batch.hooks = f.batch.hooks, nil
			}
			entries[i] = e
			if tx.Failed() != nil {
				failed = true
				return
			}
		}
	}()
	if failed {
		tx.Abort()
		for i, l := range logs {
			out[i] = f.Apply(l)
		}
		return out
	}
	tx.Commit()
	for _, e := range entries {
		for _, call := range e.hooks {
			call()
		}
		if e.cmd {
			f.publishEntryEvents(e.typ, e.index, e.writes)
		}
		f.applied.advance(e.index)
	}
	return out
}
