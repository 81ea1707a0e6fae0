package planapply

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// maxGroup bounds how many evaluated plans wait for the next group: more
// would only lengthen their wait (hashicorp/raft writes up to 64 entries
// per disk batch by default).
const maxGroup = 64

// member is one evaluated plan on its way through the pipeline.
type member struct {
	pending *PendingPlan
	result  *structs.PlanResult
	req     *structs.ApplyPlanResultsRequest // nil: nothing to commit
	// overlaid: the plan was evaluated on top of uncommitted entries, so
	// its RefreshIndex must cover them once they are committed.
	overlaid bool
	// afterWaiting: some of those entries were not yet proposed then, so
	// they go into the same group as this plan.
	afterWaiting bool
	future       CommitFuture
	index        uint64 // the committed entry's index
	err          error  // what the submitter gets instead of the result
}

// group is the entries in raft at once: the plans evaluated while the
// previous group was committed, proposed back to back so raft writes and
// replicates them together (group commit).
type group struct {
	members []*member
	done    chan struct{} // closed once every member's outcome is known
}

// wait collects every member's outcome, then closes done.
func (g *group) wait() {
	for _, m := range g.members {
		if m.future == nil {
			continue
		}
		index, err := m.future.Wait()
		if err != nil {
			m.err = fmt.Errorf("plan apply: commit: %w", err)
			continue
		}
		m.index = index
	}
	close(g.done)
}

// busy reports whether a plan evaluated now would sit on top of
// uncommitted entries.
func (a *Applier) busy() bool { return a.inflight != nil || len(a.waiting) > 0 }

// evaluate is the pipeline's first step: it checks plan p against the
// committed state overlaid with every accepted plan not yet committed, and
// queues what fits for the next group. A plan with nothing to commit is
// answered at once, unless it was rejected on top of uncommitted entries:
// its RefreshIndex must then wait for their indexes.
func (a *Applier) evaluate(ctx context.Context, p *PendingPlan) {
	m, err := a.evaluatePlan(ctx, p.Plan)
	if err != nil {
		p.respond(nil, err)
		return
	}
	m.pending = p
	if m.req == nil && (m.result.RefreshIndex == 0 || !m.overlaid) {
		p.respond(m.result, nil)
		return
	}
	if m.req != nil {
		a.ov.add(m.result)
	}
	a.waiting = append(a.waiting, m)
}

// evaluatePlan is token, state, evaluation and the entry to commit.
func (a *Applier) evaluatePlan(ctx context.Context, plan *structs.Plan) (*member, error) {
	if err := ValidatePlanToken(a.tokens, plan); err != nil {
		return nil, err
	}
	ov, err := a.overlay(ctx)
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
	m := &member{result: out.Result, overlaid: a.busy(), afterWaiting: len(a.waiting) > 0}
	if hasChanges(out.Result) {
		m.req, err = buildRequest(ov, plan, out.Result, a.clock.Now().UnixNano(), a.newID)
		if err != nil {
			return nil, fmt.Errorf("plan apply: build request: %w", err)
		}
	}
	return m, nil
}

// overlay returns the state to evaluate the next plan on. After a group
// is done it takes a fresh snapshot (which includes that group) and lays
// the plans still uncommitted on top again.
func (a *Applier) overlay(ctx context.Context) (*overlay, error) {
	if a.ov != nil {
		return a.ov, nil
	}
	snap, err := a.state.SnapshotMinIndex(ctx, a.lastIndex)
	if err != nil {
		return nil, fmt.Errorf("plan apply: snapshot at index %d: %w", a.lastIndex, err)
	}
	ov := newOverlay(snap)
	if a.inflight != nil {
		addMembers(ov, a.inflight.members)
	}
	addMembers(ov, a.waiting)
	a.ov = ov
	return ov, nil
}

func addMembers(ov *overlay, members []*member) {
	for _, m := range members {
		if m.req != nil && m.err == nil {
			ov.add(m.result)
		}
	}
}

// dispatch proposes the waiting plans as the next group, unless a group
// is still in flight. The snapshot the next plans are evaluated on is
// taken first, so it cannot already contain part of the new group (an
// overlaid placement that is also in the base would count twice). A
// rejected plan with nothing to commit is answered now if every entry it
// was evaluated on is committed, else it waits for this group too.
func (a *Applier) dispatch(ctx context.Context) {
	if a.inflight != nil || len(a.waiting) == 0 {
		return
	}
	_, _ = a.overlay(ctx) // on error the next evaluation tries again
	var members []*member
	for _, m := range a.waiting {
		if m.req == nil && !m.afterWaiting {
			a.answer(m)
			continue
		}
		members = append(members, m)
	}
	a.waiting = nil
	if len(members) == 0 {
		return
	}
	g := &group{members: members, done: make(chan struct{})}
	for _, m := range g.members {
		if m.req == nil {
			continue
		}
		// Checked again: the eval may have been redelivered while the
		// plan waited for this group.
		if err := ValidatePlanToken(a.tokens, m.pending.Plan); err != nil {
			m.err = err
			continue
		}
		m.future = a.startCommit(m.req)
	}
	a.inflight = g
	if _, async := a.raft.(AsyncRaft); async {
		go g.wait()
	} else {
		g.wait() // every outcome is known: keep synchronous steps deterministic
	}
}

// complete answers the in-flight group once it is done. If any of its
// entries failed, the plans evaluated on top of it are evaluated again on
// the committed state: they were never proposed, so nothing of them can
// have been committed.
func (a *Applier) complete(ctx context.Context) {
	g := a.inflight
	<-g.done
	a.inflight, a.ov = nil, nil
	failed := false
	for _, m := range g.members {
		a.lastIndex = max(a.lastIndex, m.index)
		failed = failed || m.err != nil
	}
	for _, m := range g.members {
		a.answer(m)
	}
	if !failed {
		return
	}
	redo := a.waiting
	a.waiting = nil
	for _, m := range redo {
		a.evaluate(ctx, m.pending)
	}
}

// answer tells a member's submitter its outcome. A plan rejected on top of
// uncommitted entries refreshes to at least the latest committed index, so
// the worker's new snapshot shows what it lost to.
func (a *Applier) answer(m *member) {
	if m.err != nil {
		m.pending.respond(nil, m.err)
		return
	}
	res := m.result
	if m.index > 0 {
		res.AllocIndex = m.index
	}
	if res.RefreshIndex > 0 && m.overlaid {
		res.RefreshIndex = max(res.RefreshIndex, a.lastIndex)
	}
	m.pending.respond(res, nil)
}

// flush runs the pipeline until nothing is in flight or waiting.
func (a *Applier) flush(ctx context.Context) {
	for a.busy() {
		if a.inflight != nil {
			a.complete(ctx)
		}
		a.dispatch(ctx)
	}
}

// runPipelined is Run's loop: evaluate plans as they arrive, and whenever
// the in-flight group is done, answer it and propose the next.
func (a *Applier) runPipelined(ctx context.Context) {
	for {
		a.mu.Lock()
		var groupDone, ready <-chan struct{}
		if a.inflight != nil {
			groupDone = a.inflight.done
		}
		if len(a.waiting) < maxGroup {
			ready = a.queue.ready()
		}
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			a.stop()
			return
		case <-groupDone:
			a.step(func() { a.complete(ctx); a.dispatch(ctx) })
		case <-ready:
			if p := a.queue.tryDequeue(); p != nil {
				a.step(func() { a.evaluate(ctx, p); a.dispatch(ctx) })
			}
		}
	}
}

func (a *Applier) step(fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn()
}

// stop answers the in-flight group and fails the plans that were never
// proposed with ErrNotLeader, so their workers resubmit to the new leader.
func (a *Applier) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	waiting := a.waiting
	a.waiting = nil // nothing is evaluated again or proposed any more
	if a.inflight != nil {
		a.complete(context.Background())
	}
	for _, m := range waiting {
		m.pending.respond(nil, ErrNotLeader)
	}
	a.ov = nil
}
