package planapply

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// maxPipeline bounds the plans between dequeue and answer: past it the
// applier stops taking plans until entries commit.
const maxPipeline = 128

// snapshotWait bounds the wait for the local state to reach a plan's
// snapshot index, so a bogus index fails one plan instead of stalling the
// applier.
const snapshotWait = 5 * time.Second

// member is one evaluated plan on its way through the pipeline.
type member struct {
	pending *PendingPlan
	result  *structs.PlanResult
	req     *structs.ApplyPlanResultsRequest // nil: nothing to commit
	// deps are the uncommitted plans whose placements lay on this plan's
	// nodes when it was evaluated: its rejections may be theirs.
	deps []*member
	// overlaid: the plan was evaluated on top of uncommitted entries, so
	// its RefreshIndex must cover them once they are committed.
	overlaid bool
	done     chan struct{} // closed once index or err is known
	index    uint64        // the committed entry's index
	err      error         // what the submitter gets instead of the result
	// answered: the submitter has its result already (answerBeforeCommit);
	// the entry's outcome only decides the eval's ack or nack.
	answered bool
}

func (m *member) settled() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// busy reports whether any plan is between evaluation and answer.
func (a *Applier) busy() bool { return len(a.inflight) > 0 || len(a.waiting) > 0 }

// evaluate checks plan p against the committed state overlaid with every
// accepted plan not yet committed, and proposes what fits at once: raft
// writes the entries proposed while it writes others together. A plan
// with nothing to commit is answered at once, unless uncommitted plans
// caused its rejections: it then waits for their outcome (waiting).
func (a *Applier) evaluate(ctx context.Context, p *PendingPlan) {
	m, err := a.evaluatePlan(ctx, p.Plan)
	if err != nil {
		p.respond(nil, err)
		return
	}
	m.pending = p
	switch {
	case m.req != nil:
		a.ov.add(m)
		a.propose(m)
	case m.result.RefreshIndex == 0 || len(m.deps) == 0:
		p.respond(m.result, nil)
	default:
		a.waiting = append(a.waiting, m)
	}
}

// evaluatePlan is token, state, evaluation and the entry to commit.
func (a *Applier) evaluatePlan(ctx context.Context, plan *structs.Plan) (*member, error) {
	if err := ValidatePlanToken(a.tokens, plan); err != nil {
		return nil, err
	}
	ov, err := a.overlay(ctx, plan.SnapshotIndex)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	out, err := Evaluate(ov, plan)
	if a.onEvaluate != nil {
		a.onEvaluate(time.Since(started))
	}
	if err != nil {
		return nil, fmt.Errorf("plan apply: evaluate: %w", err)
	}
	a.injectRejections(plan, out.Result, ov.LatestIndex())
	a.logRejections(plan, out.Rejections)
	m := &member{result: out.Result, overlaid: len(a.inflight) > 0, deps: ov.dependencies(plan)}
	if hasChanges(out.Result) {
		m.req, err = buildRequest(ov, plan, out.Result, a.clock.Now().UnixNano(), a.newID)
		if err != nil {
			return nil, fmt.Errorf("plan apply: build request: %w", err)
		}
		a.attachFinalEval(plan, out.Result, m.req)
	}
	return m, nil
}

// overlay returns the state to evaluate the next plan on: a snapshot at
// least as new as the applier's own last commit and as the snapshot the
// plan was computed on (an older one would not know the plan's job yet,
// and reject it as gone), with the plans still in flight laid on top. It
// is rebuilt after an entry settles (the new snapshot includes it) and
// whenever a plan was computed on newer state.
func (a *Applier) overlay(ctx context.Context, planIndex uint64) (*overlay, error) {
	if a.ov != nil && a.ov.LatestIndex() >= planIndex {
		return a.ov, nil
	}
	want := max(a.lastIndex, planIndex)
	ctx, cancel := context.WithTimeout(ctx, snapshotWait)
	defer cancel()
	snap, err := a.state.SnapshotMinIndex(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("plan apply: snapshot at index %d: %w", want, err)
	}
	ov := newOverlay(snap)
	for _, m := range a.inflight {
		if m.settled() && (m.err != nil || m.index <= snap.LatestIndex()) {
			continue // failed, or already in the snapshot
		}
		ov.add(m)
	}
	a.ov = ov
	return ov, nil
}

// propose starts committing m's entry. With an asynchronous raft a
// goroutine collects the outcome and settles the pipeline itself (one
// wakeup from commit to answer, as in the serial applier); otherwise the
// outcome is known at once.
func (a *Applier) propose(m *member) {
	m.done = make(chan struct{})
	a.inflight = append(a.inflight, m)
	future := a.startCommit(m.req)
	finish := func() {
		index, err := future.Wait()
		if err != nil {
			m.err = fmt.Errorf("plan apply: commit: %w", err)
		}
		m.index = index
		close(m.done)
	}
	if a.async == nil {
		finish() // keep synchronous steps deterministic
		return
	}
	a.answerBeforeCommit(m)
	go func() {
		finish()
		a.mu.Lock()
		a.settle(a.runCtx)
		a.mu.Unlock()
		select {
		case a.settled <- struct{}{}:
		default: // a wakeup is already pending
		}
	}()
}

// settle answers the in-flight plans whose entries' outcomes are known,
// oldest first (raft commits in order), then the waiting plans whose
// dependencies have settled: a waiting plan rejected because of a plan
// whose entry failed is evaluated again, since its rejection may no longer
// hold.
func (a *Applier) settle(ctx context.Context) {
	for len(a.inflight) > 0 && a.inflight[0].settled() {
		m := a.inflight[0]
		a.inflight[0] = nil
		a.inflight = a.inflight[1:]
		a.lastIndex = max(a.lastIndex, m.index)
		a.ov = nil // the next plan sees this entry committed, or gone
		a.answer(m)
	}
	waiting := a.waiting
	a.waiting = nil
	for _, m := range waiting {
		switch depsOutcome(m) {
		case depsPending:
			a.waiting = append(a.waiting, m)
		case depsFailed:
			a.evaluate(ctx, m.pending)
		default:
			a.answer(m)
		}
	}
}

const (
	depsCommitted = iota
	depsPending
	depsFailed
)

func depsOutcome(m *member) int {
	out := depsCommitted
	for _, d := range m.deps {
		switch {
		case !d.settled():
			return depsPending
		case d.err != nil:
			out = depsFailed
		}
	}
	return out
}

// answer tells a member's submitter its outcome. A plan rejected on top
// of uncommitted entries refreshes to at least their indexes, so the
// worker's new snapshot shows what it lost to.
func (a *Applier) answer(m *member) {
	if m.answered {
		a.settleAnswered(m)
		return
	}
	if m.err != nil {
		m.pending.respond(nil, m.err)
		return
	}
	res := m.result
	if m.index > 0 {
		res.AllocIndex = m.index
	}
	a.finishEval(m)
	if res.RefreshIndex > 0 && (m.overlaid || len(m.deps) > 0) {
		res.RefreshIndex = max(res.RefreshIndex, a.lastIndex)
		for _, d := range m.deps {
			res.RefreshIndex = max(res.RefreshIndex, d.index)
		}
	}
	m.pending.respond(res, nil)
}

// flush runs the pipeline until every plan in it is answered, or until
// the server shuts down: then the plans still in raft are failed
// (abandon).
func (a *Applier) flush(ctx context.Context) {
	for a.busy() {
		if len(a.inflight) > 0 && !a.waitSettled(a.inflight[0]) {
			a.abandon()
			return
		}
		a.settle(ctx)
	}
}

// waitSettled waits for m's entry's outcome; false when the server shuts
// down first.
func (a *Applier) waitSettled(m *member) bool {
	if m.settled() {
		return true
	}
	select {
	case <-m.done:
		return true
	case <-a.stopping:
		return false
	}
}

// abandon fails every plan in the pipeline with ErrShuttingDown, without
// waiting for the entries in raft: the server is shutting down and raft
// may not apply them before it stops. A plan answered when its entry was
// proposed is left as it is: its eval is neither acked nor nacked, and
// the next leader finds it pending unless the entry committed it. The
// goroutines collecting those entries' outcomes find the pipeline empty.
func (a *Applier) abandon() {
	for _, m := range append(a.inflight, a.waiting...) {
		if !m.answered {
			m.pending.respond(nil, ErrShuttingDown)
		}
	}
	a.inflight, a.waiting, a.ov = nil, nil, nil
}

// runPipelined is Run's loop: evaluate and propose plans as they arrive,
// and answer them as their entries commit.
func (a *Applier) runPipelined(ctx context.Context) {
	a.step(func() { a.runCtx = ctx })
	for {
		a.mu.Lock()
		var ready <-chan struct{}
		if len(a.inflight)+len(a.waiting) < maxPipeline {
			ready = a.queue.ready()
		}
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			a.stop()
			return
		case <-a.settled: // the pipeline may have room again
		case <-ready:
			if p := a.queue.tryDequeue(); p != nil {
				a.step(func() { a.evaluate(ctx, p); a.settle(ctx) })
			}
		}
	}
}

func (a *Applier) step(fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn()
}

// stop answers every plan in raft with its entry's outcome, and fails the
// waiting ones (nothing to commit, rejected on top of those entries) with
// ErrNotLeader, so their workers resubmit to the new leader.
func (a *Applier) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer func() { a.runCtx = context.Background() }()
	for len(a.inflight) > 0 {
		m := a.inflight[0]
		if !a.waitSettled(m) {
			a.abandon()
			return
		}
		a.inflight = a.inflight[1:]
		a.lastIndex = max(a.lastIndex, m.index)
		a.answer(m)
	}
	for _, m := range a.waiting {
		m.pending.respond(nil, ErrNotLeader)
	}
	a.inflight, a.waiting, a.ov = nil, nil, nil
}
