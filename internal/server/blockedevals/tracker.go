package blockedevals

import (
	"sync"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Tracker holds blocked evals on the leader until capacity they might use
// appears. The zero value is not usable; call New.
type Tracker struct {
	enq Enqueuer
	clk clock.Clock

	mu      sync.Mutex
	enabled bool
	set     *evalSet
	// classIndexes and nodeIndexes remember the latest raft index at which
	// capacity changed per class / per node, so an eval whose scheduler
	// snapshot predates such a change is released at Block instead of
	// waiting for a change that already happened.
	classIndexes indexLog
	nodeIndexes  indexLog
	dups         duplicates

	// pruneTimer and generation drive the periodic index prune; generation
	// changes on every enable/disable so a timer that fires late is a no-op.
	pruneTimer clock.Timer
	generation uint64
}

// New returns a disabled tracker releasing evals to enq. The leader
// enables it when it gains leadership.
func New(enq Enqueuer, clk clock.Clock) *Tracker {
	t := &Tracker{enq: enq, clk: clk, dups: newDuplicates()}
	t.flush()
	return t
}

// SetEnabled turns the tracker on or off. Any change flushes all state: a
// leader that lost leadership must forget what it tracked, and a new
// leader starts empty and re-Blocks every blocked eval found in state.
func (t *Tracker) SetEnabled(enabled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enabled == enabled {
		return
	}
	t.enabled = enabled
	t.flush()
	if enabled {
		t.schedulePrune()
	}
}

// Enabled reports whether the tracker accepts evals.
func (t *Tracker) Enabled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.enabled
}

// flush drops every tracked eval, index record and pending duplicate, and
// stops the prune timer. Callers hold t.mu (or own t exclusively).
func (t *Tracker) flush() {
	t.set = newEvalSet()
	t.classIndexes = newIndexLog()
	t.nodeIndexes = newIndexLog()
	t.dups.reset()
	t.generation++
	if t.pruneTimer != nil {
		t.pruneTimer.Stop()
		t.pruneTimer = nil
	}
}

// release is what a state transition hands to the broker.
type release = map[*structs.Evaluation]string

// step runs f under the lock if the tracker is enabled and hands what it
// released to the broker after unlocking. Enqueueing outside the lock keeps
// the broker's lock order independent of ours; f has already removed the
// evals it returns, so none can be handed over twice.
func (t *Tracker) step(f func() release) {
	t.mu.Lock()
	var out release
	if t.enabled {
		out = f()
	}
	t.mu.Unlock()
	if len(out) > 0 {
		t.enq.EnqueueAll(out)
	}
}

// releaseEntries removes entries from the set and returns them, with the
// token each was reblocked under, for one EnqueueAll call.
func (t *Tracker) releaseEntries(entries []*entry) release {
	out := make(release, len(entries))
	for _, en := range entries {
		t.set.remove(en.eval.ID)
		out[en.eval] = en.token
	}
	return out
}
