package fsm

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// EvalSink receives evaluations the FSM wrote, so the leader's broker and
// blocked-evals tracker can take them. The FSM never decides whether this
// server is the leader: the sink does (and ignores calls when it is not).
type EvalSink interface {
	// EvalsWritten receives evals just written. token is the broker token
	// of the worker that wrote them ("" for everyone else): a worker that
	// re-blocks the eval it holds passes it, so an unblock racing its ack
	// requeues the eval instead of losing it.
	EvalsWritten(evals []*structs.Evaluation, token string)
	// CapacityChanged reports that a node may have room for more work (it
	// registered, became ready or eligible, or allocs on it stopped).
	CapacityChanged(node *structs.Node, index uint64)
}

// FSM is the raft finite state machine over a state store.
type FSM struct {
	log   *slog.Logger
	state *state.StateStore

	mu   sync.RWMutex
	sink EvalSink

	appliers map[structs.MessageType]applier
	applied  *appliedIndex
	events   entryChanges

	// batch is the batch ApplyBatch is applying, nil outside one; only
	// the goroutine applying entries touches it.
	batch *applyingBatch
}

// applier applies one entry's payload at a raft index.
type applier struct {
	apply func(buf []byte, index uint64) error
	// payload is the type an entry decodes into: the structs reachable
	// from it are the log's format (TestEntryFields_OnlyEverAppended).
	payload reflect.Type
}

// New returns an FSM over a fresh, empty state store.
func New(log *slog.Logger) (*FSM, error) {
	st, err := state.NewStateStore()
	if err != nil {
		return nil, err
	}
	f := &FSM{log: log, state: st, applied: newAppliedIndex()}
	f.appliers = f.applierTable()
	maps.Copy(f.appliers, f.nativeAppliers())
	return f, nil
}

// State returns the state store the FSM writes.
func (f *FSM) State() *state.StateStore { return f.state }

// SetEvalSink installs the receiver of written evaluations.
func (f *FSM) SetEvalSink(s EvalSink) {
	f.mu.Lock()
	f.sink = s
	f.mu.Unlock()
}

// Apply applies one committed raft log entry. The returned value reaches the
// proposer through raft's ApplyFuture.Response: nil or an error.
func (f *FSM) Apply(l *raft.Log) any {
	defer f.applied.advance(l.Index)
	if l.Type != raft.LogCommand || len(l.Data) == 0 {
		return nil
	}
	t := structs.MessageType(l.Data[0])
	defer f.publishEntryEvents(t, l.Index, -1)
	return f.applyCommand(l)
}

// applyCommand applies a command entry's payload; the caller publishes its
// events and advances the applied index.
func (f *FSM) applyCommand(l *raft.Log) any {
	t := structs.MessageType(l.Data[0])
	a, ok := f.appliers[t]
	if !ok {
		// An unknown type means a newer server wrote it; failing loudly
		// beats silently diverging from the other replicas.
		panic(fmt.Sprintf("fsm: unknown message type %d at index %d", t, l.Index))
	}
	if err := a.apply(l.Data[1:], l.Index); err != nil {
		if errors.Is(err, ErrCASConflict) {
			// An expected answer (a stale check-and-set), not a failure.
			f.log.Debug("fsm: check-and-set did not apply", "type", t, "index", l.Index)
			return err
		}
		if f.batch != nil && f.batch.tx.Failed() != nil {
			// The batch is retried one entry at a time, which logs it.
			return err
		}
		f.log.Error("fsm apply failed", "type", t, "index", l.Index, "error", err)
		return err
	}
	return nil
}

// notify hands the stored copies of written evals (with their raft
// indexes set) to the sink.
func (f *FSM) notify(evals []*structs.Evaluation) { f.notifyWithToken(evals, "") }

func (f *FSM) notifyWithToken(evals []*structs.Evaluation, token string) {
	s := f.currentSink()
	if s == nil || len(evals) == 0 {
		return
	}
	view := f.view()
	stored := make([]*structs.Evaluation, 0, len(evals))
	for _, e := range evals {
		if got, err := view.EvalByID(nil, e.ID); err == nil && got != nil {
			stored = append(stored, got)
		}
	}
	f.emit(func() { s.EvalsWritten(stored, token) })
}

func (f *FSM) currentSink() EvalSink {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.sink
}

// capacityChanged tells the sink that these nodes may have room now.
func (f *FSM) capacityChanged(index uint64, nodeIDs ...string) {
	s := f.currentSink()
	if s == nil {
		return
	}
	view := f.view()
	seen := map[string]bool{}
	for _, id := range nodeIDs {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if n, err := view.NodeByID(nil, id); err == nil && n != nil && n.Ready() {
			f.emit(func() { s.CapacityChanged(n, index) })
		}
	}
}

// Snapshot captures the state for raft. Persist runs concurrently with
// further Applies, which is safe because the snapshot is immutable.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	return &snapshot{snap: f.state.Snapshot()}, nil
}

// Restore replaces the whole state with a raft snapshot.
func (f *FSM) Restore(r io.ReadCloser) error {
	defer r.Close()
	if err := f.state.Restore(r); err != nil {
		return err
	}
	f.applied.advance(f.state.LatestIndex())
	return nil
}

type snapshot struct{ snap *state.StateSnapshot }

// deferringSink is a snapshot store's sink that can keep the snapshot
// unwritten and write it when read (a dev server's in-memory store: it
// holds the immutable state snapshot instead of a serialised copy).
type deferringSink interface {
	Defer(write func(io.Writer) error)
}

func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	if d, ok := sink.(deferringSink); ok {
		d.Defer(s.snap.Persist)
		return sink.Close()
	}
	if err := s.snap.Persist(sink); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *snapshot) Release() {}
