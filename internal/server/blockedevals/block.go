package blockedevals

import "github.com/drover-project/drover/internal/structs"

// Block tracks a blocked eval (the caller filters with ShouldBlock). It is
// released at once if capacity it could use changed after the snapshot
// its scheduler saw. Ignored while the tracker is disabled.
func (t *Tracker) Block(ev *structs.Evaluation) { t.block(ev, "") }

// Reblock tracks an eval a worker re-blocked while still holding it under
// token. If the eval is released before the worker acks or nacks, the
// token goes with it so the broker requeues it after the ack instead of
// handing it to a second worker concurrently.
func (t *Tracker) Reblock(ev *structs.Evaluation, token string) { t.block(ev, token) }

func (t *Tracker) block(ev *structs.Evaluation, token string) {
	if ev == nil {
		return
	}
	t.step(func() release { return t.blockLocked(ev, token) })
}

// blockLocked is one Block step; it returns what must be enqueued.
func (t *Tracker) blockLocked(ev *structs.Evaluation, token string) release {
	// The same eval may arrive twice (the FSM's Block and the worker's
	// Reblock): replace the old copy, keeping whichever token is known.
	if prev := t.set.remove(ev.ID); prev != nil && token == "" {
		token = prev.token
	}
	if !t.dedupe(ev) {
		return nil
	}
	if t.missedUnblock(ev) {
		return release{ev: token}
	}
	t.set.add(&entry{eval: ev, token: token})
	return nil
}

// dedupe keeps one blocked eval per job (per job and node for per-node
// evals): running several would only repeat the same scheduling work. The
// newer survives since its class eligibility is the most current; the
// older goes to the duplicates for the leader to cancel. It reports
// whether ev survives.
func (t *Tracker) dedupe(ev *structs.Evaluation) bool {
	cur := t.set.forJob(keyOf(ev), ev.NodeID)
	if cur == nil {
		return true
	}
	if newer(cur.eval, ev) {
		t.dups.add(ev)
		return false
	}
	t.set.remove(cur.eval.ID)
	t.dups.add(cur.eval)
	return true
}

// newer reports whether a was produced from strictly later state than b:
// a later scheduler snapshot, then a later creation. On a tie the eval
// being blocked now wins, as the latest report about the job.
func newer(a, b *structs.Evaluation) bool {
	return a.SnapshotIndex > b.SnapshotIndex ||
		a.SnapshotIndex == b.SnapshotIndex && a.CreateIndex > b.CreateIndex
}

// missedUnblock reports whether capacity the eval could use changed after
// its scheduler's snapshot but before it reached the tracker: that unblock
// found nothing to release, so without this check the eval would wait for
// a change that already happened.
func (t *Tracker) missedUnblock(ev *structs.Evaluation) bool {
	snap := ev.SnapshotIndex
	if snap == 0 {
		return false // no evidence of what was seen: treat as fresh
	}
	if ev.NodeID != "" {
		return t.nodeIndexes.after(ev.NodeID, snap)
	}
	for class, rec := range t.classIndexes {
		if rec.index > snap && (ev.EscapedComputedClass || mayFit(ev, class)) {
			return true
		}
	}
	return false
}
