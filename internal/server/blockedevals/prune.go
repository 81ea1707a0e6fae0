package blockedevals

import "time"

const (
	// PruneInterval is how often old capacity-change records are pruned.
	PruneInterval = 5 * time.Minute
	// PruneThreshold is how long a capacity-change record is kept. It
	// bounds memory on clusters with many classes or nodes; a scheduler
	// snapshot older than this is unusual enough to accept the risk of a
	// missed unblock (see the package doc for the recovery path).
	PruneThreshold = 15 * time.Minute
)

// schedulePrune arms the next prune. Callers hold t.mu.
func (t *Tracker) schedulePrune() {
	gen := t.generation
	t.pruneTimer = t.clk.AfterFunc(PruneInterval, func() { t.pruneTick(gen) })
}

// pruneTick prunes and re-arms, unless the tracker was disabled or
// re-enabled since the timer was armed (then a newer timer owns pruning).
func (t *Tracker) pruneTick(gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.enabled || gen != t.generation {
		return
	}
	cutoff := t.clk.Now().Add(-PruneThreshold)
	t.classIndexes.prune(cutoff)
	t.nodeIndexes.prune(cutoff)
	t.schedulePrune()
}
