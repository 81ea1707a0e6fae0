package scheduler

import (
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Descriptions of the stops the reconciler decides.
const (
	allocNotNeeded   = "alloc not needed due to job update"
	allocMigrating   = "alloc is being migrated"
	allocUpdating    = "alloc is being updated due to job update"
	allocLost        = "alloc is lost since its node is down"
	allocRescheduled = "alloc was rescheduled because it failed"
	allocJobStopped  = "alloc not needed since job is stopped"
)

// placeRequest is one alloc the reconciler wants placed.
type placeRequest struct {
	tg    *structs.TaskGroup
	name  string
	index uint
	// previous is the alloc this one replaces (lost, migrated, rescheduled,
	// destructively updated), nil for a new one.
	previous *structs.Allocation
	// stopPrevious stops previous only once this placement succeeded, so a
	// destructive update or migration that cannot be placed keeps the old
	// alloc running.
	stopPrevious bool
	stopDesc     string
	reschedule   bool
	delay        time.Duration
	canary       bool
}

// stopRequest is one alloc the reconciler wants stopped.
type stopRequest struct {
	alloc        *structs.Allocation
	desc         string
	clientStatus string
}

// reconcileResults is what the plan must do for the job.
type reconcileResults struct {
	place      []placeRequest
	stop       []stopRequest
	inplace    []*structs.Allocation // updated copies
	attrUpdate []*structs.Allocation // copies with FollowupEvalID set
	followUps  []*structs.Evaluation
	desired    map[string]*structs.DesiredUpdates
	// kept are, per group, the allocs that stay where they are.
	kept map[string][]*structs.Allocation
	// deployment is a new or changed deployment for the plan.
	deployment *structs.Deployment
	// active is the deployment placements join (current or new), or nil.
	active            *structs.Deployment
	deploymentUpdates []*structs.DeploymentStatusUpdate
}

// reconciler compares a service or batch job with its allocs.
type reconciler struct {
	job        *structs.Job // nil when purged
	batch      bool
	allocs     []*structs.Allocation
	nodes      map[string]*structs.Node
	eval       *structs.Evaluation
	now        time.Time
	latest     *structs.Deployment // the job's latest deployment
	deployment *structs.Deployment // the job version's active deployment
	result     *reconcileResults   // deployment: see deployment.go
	// rolloutFailed: the job version's deployment failed (deployment.go);
	// failed is that deployment.
	rolloutFailed bool
	failed        *structs.Deployment
	later         []laterReschedule
	// followUpID lets the scheduler reuse a follow-up eval made by an
	// earlier attempt for the same time; nil keeps the new one.
	followUpID func(*structs.Evaluation) *structs.Evaluation
	// followUpPending reports whether a follow-up eval has yet to run; nil
	// means none is known to.
	followUpPending func(evalID string) bool
	ids             func() string // nil: newID
}

type laterReschedule struct {
	alloc *structs.Allocation
	at    time.Time
}

func newReconciler(job *structs.Job, batch bool, allocs []*structs.Allocation, nodes map[string]*structs.Node,
	eval *structs.Evaluation, latest *structs.Deployment, now time.Time) *reconciler {
	return &reconciler{
		job: job, batch: batch, allocs: allocs, nodes: nodes, eval: eval, now: now, latest: latest,
		result: &reconcileResults{desired: map[string]*structs.DesiredUpdates{}, kept: map[string][]*structs.Allocation{}},
	}
}

func (r *reconciler) stopped() bool { return r.job == nil || r.job.Stop }

// compute runs the reconciliation over every group of the job and of its
// allocs (a group removed from the job has its allocs stopped).
func (r *reconciler) compute() *reconcileResults {
	r.reconcileDeployment()
	byGroup := map[string][]*structs.Allocation{}
	var names []string
	if r.job != nil {
		for _, tg := range r.job.TaskGroups {
			names = append(names, tg.Name)
			byGroup[tg.Name] = nil
		}
	}
	for _, a := range r.allocs {
		if _, ok := byGroup[a.TaskGroup]; !ok {
			names = append(names, a.TaskGroup)
		}
		byGroup[a.TaskGroup] = append(byGroup[a.TaskGroup], a)
	}
	for _, name := range names {
		r.reconcileGroup(name, byGroup[name])
	}
	r.createFollowUps()
	r.result.active = r.deployment
	return r.result
}

// allocAction is the reconciler's decision for one alloc before counting.
type allocAction int

const (
	actIgnore      allocAction = iota // keep as is
	actInPlace                        // update the job in place
	actDestructive                    // replace with the new version
	actLost                           // node gone: stop as lost and replace
	actMigrate                        // draining: replace elsewhere
	actReschedule                     // failed: replace now
	actLater                          // failed: replace after a delay
	actDisconnect                     // node disconnected: unknown, replaced until lost_after
	actUnknown                        // node gone, group prevents rescheduling: unknown, kept
)

// needsReplacement reports whether the alloc is gone or going.
func (a allocAction) needsReplacement() bool {
	return a == actLost || a == actMigrate || a == actReschedule
}

type entry struct {
	alloc  *structs.Allocation
	index  uint
	action allocAction
	at     time.Time     // actLater: when
	delay  time.Duration // actReschedule: the delay applied
}

func (r *reconciler) reconcileGroup(name string, allocs []*structs.Allocation) {
	du := &structs.DesiredUpdates{}
	r.result.desired[name] = du
	var tg *structs.TaskGroup
	if !r.stopped() {
		tg = r.job.LookupTaskGroup(name)
	}
	if tg == nil {
		r.stopAll(allocs, du)
		return
	}
	allocs = r.stopFailedCanaries(tg, allocs, du)
	canaries, rest := r.splitCanaries(tg, allocs)
	entries := r.classify(tg, rest, du)
	entries = r.trimToCount(tg, entries, du)
	r.act(tg, entries, canaries, du)
}

// stopAll stops every live alloc of a group the job no longer runs.
func (r *reconciler) stopAll(allocs []*structs.Allocation, du *structs.DesiredUpdates) {
	desc := allocNotNeeded
	if r.stopped() {
		desc = allocJobStopped
	}
	for _, a := range allocs {
		if !a.TerminalStatus() {
			r.result.stop = append(r.result.stop, stopRequest{alloc: a, desc: desc})
			du.Stop++
		}
	}
}

// classify decides what each counted alloc of the group needs. Allocs the
// server stopped, service allocs that completed, and allocs already
// replaced are not counted at all (but an original that reconnected may be
// kept instead of its replacement: resolveReplaced).
func (r *reconciler) classify(tg *structs.TaskGroup, allocs []*structs.Allocation, du *structs.DesiredUpdates) []entry {
	replaced := map[string]bool{}
	for _, a := range allocs {
		if a.PreviousAllocation != "" {
			replaced[a.PreviousAllocation] = true
		}
	}
	skip := r.resolveReplaced(tg, allocs, du)
	var out []entry
	for _, a := range allocs {
		// A replaced alloc is finished, except a disconnected original:
		// resolveReplaced decided whether it still counts (its
		// NextAllocation is set, so only a finished one is skipped by it).
		if skip[a.ID] || a.ServerTerminalStatus() || ((replaced[a.ID] || a.NextAllocation != "") && a.ClientTerminalStatus()) {
			continue
		}
		e := entry{alloc: a, index: a.Index()}
		switch {
		case a.ClientStatus == structs.AllocClientStatusComplete:
			if !r.batch {
				continue // a finished service alloc is replaced
			}
		case a.ClientStatus == structs.AllocClientStatusLost:
			continue
		case a.ClientStatus == structs.AllocClientStatusFailed || forced(a):
			e.action, e.at, e.delay = r.failedAction(tg, a)
		default:
			e.action = r.liveAction(tg, a)
		}
		out = append(out, e)
	}
	return out
}

func (r *reconciler) failedAction(tg *structs.TaskGroup, a *structs.Allocation) (allocAction, time.Time, time.Duration) {
	when, at, delay := rescheduleDecision(a, tg.ReschedulePolicy, r.now, r.eval.ID)
	switch when {
	case rescheduleNow:
		return actReschedule, at, delay
	case rescheduleLater:
		return actLater, at, delay
	}
	return actIgnore, at, 0 // counts toward the group, never replaced
}

// liveAction decides for a running (or pending) alloc.
func (r *reconciler) liveAction(tg *structs.TaskGroup, a *structs.Allocation) allocAction {
	node := r.nodes[a.NodeID]
	switch {
	case node == nil:
		return actLost
	case node.Status == structs.NodeStatusDown:
		return lostUnlessPrevented(tg)
	case node.Status == structs.NodeStatusDisconnected:
		if act := r.disconnectAction(tg, node); act != actLost {
			return act
		}
		return lostUnlessPrevented(tg)
	case a.DesiredTransition.Migrate != nil && *a.DesiredTransition.Migrate:
		return actMigrate
	}
	return r.updateAction(tg, a, node)
}

// updateAction compares the alloc's job version with the current one.
func (r *reconciler) updateAction(tg *structs.TaskGroup, a *structs.Allocation, node *structs.Node) allocAction {
	old := a.Job
	if old == nil || (old.Version == r.job.Version && old.JobModifyIndex == r.job.JobModifyIndex && old.CreateIndex == r.job.CreateIndex) {
		return actIgnore
	}
	oldTG := old.LookupTaskGroup(tg.Name)
	if oldTG == nil || tasksUpdated(oldTG, tg) || jobPlacementUpdated(old, r.job) ||
		!inDatacenters(r.job.Datacenters, node.Datacenter) || !inPool(r.job, node) {
		return actDestructive
	}
	return actInPlace
}

// trimToCount stops allocs beyond the group's count: duplicates of a name
// first, then those that would need a replacement, then the highest
// indexes.
func (r *reconciler) trimToCount(tg *structs.TaskGroup, entries []entry, du *structs.DesiredUpdates) []entry {
	entries, dups := dedupeByIndex(entries, r.job)
	excess := max(len(entries)-tg.Count, 0)
	slices.SortStableFunc(entries, func(a, b entry) int {
		if ra, rb := a.action.needsReplacement(), b.action.needsReplacement(); ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return cmpInt(int64(b.index), int64(a.index))
	})
	for _, e := range append(dups, entries[:excess]...) {
		r.stopSurplus(e, du)
	}
	kept := entries[excess:]
	slices.SortFunc(kept, func(a, b entry) int { return cmpInt(int64(a.index), int64(b.index)) })
	return kept
}

// dedupeByIndex keeps one alloc per name: one of the current version that
// needs nothing, else the oldest.
func dedupeByIndex(entries []entry, job *structs.Job) (keep, dups []entry) {
	best := map[uint]int{}
	rank := func(e entry) int {
		switch {
		case e.action.needsReplacement():
			return 2
		case e.action == actIgnore && e.alloc.Job != nil && e.alloc.Job.Version == job.Version:
			return 0
		}
		return 1
	}
	for i, e := range entries {
		j, seen := best[e.index]
		if !seen {
			best[e.index] = i
			continue
		}
		cur := entries[j]
		if rank(e) < rank(cur) || (rank(e) == rank(cur) && e.alloc.CreateIndex < cur.alloc.CreateIndex) {
			best[e.index] = i
		}
	}
	for i, e := range entries {
		if best[e.index] == i {
			keep = append(keep, e)
		} else {
			dups = append(dups, e)
		}
	}
	return keep, dups
}

// stopSurplus stops an alloc the group no longer needs; one that is
// already finished needs nothing, a lost one is still marked lost.
func (r *reconciler) stopSurplus(e entry, du *structs.DesiredUpdates) {
	if e.alloc.ClientTerminalStatus() {
		return
	}
	status := ""
	if e.action == actLost {
		status = structs.AllocClientStatusLost
	}
	r.result.stop = append(r.result.stop, stopRequest{alloc: e.alloc, desc: allocNotNeeded, clientStatus: status})
	du.Stop++
}

// act turns the kept entries into plan work and places what is missing.
func (r *reconciler) act(tg *structs.TaskGroup, entries []entry, canaries []*structs.Allocation, du *structs.DesiredUpdates) {
	budget := r.destructiveBudget(tg)
	canaryNames := r.placeCanaries(tg, entries, canaries, du)
	if canaryNames >= 0 {
		budget = 0 // unpromoted canaries hold back the rollout
	}
	used := map[uint]bool{}
	for _, e := range entries {
		used[e.index] = true
		req := placeRequest{tg: tg, name: e.alloc.Name, index: e.index, previous: e.alloc}
		switch e.action {
		case actIgnore:
			du.Ignore++
			r.keep(tg, e.alloc)
		case actInPlace:
			du.InPlaceUpdate++
			r.result.inplace = append(r.result.inplace, r.inPlace(e.alloc))
			r.keep(tg, e.alloc)
		case actDestructive:
			if budget == 0 {
				du.Ignore++
				r.keep(tg, e.alloc)
				continue
			}
			budget--
			du.DestructiveUpdate++
			req.stopPrevious, req.stopDesc = true, allocUpdating
			r.result.place = append(r.result.place, req)
		case actLost:
			du.Place++
			du.Stop++
			r.result.stop = append(r.result.stop, stopRequest{alloc: e.alloc, desc: allocLost, clientStatus: structs.AllocClientStatusLost})
			r.result.place = append(r.result.place, req)
		case actMigrate:
			du.Migrate++
			r.migrate(e.alloc, &req)
		case actReschedule:
			du.Place++
			req.reschedule, req.delay = true, e.delay
			r.result.place = append(r.result.place, req)
		case actDisconnect:
			du.Ignore++
			r.keep(tg, e.alloc)
			r.markDisconnected(tg, e.alloc, req, du)
		case actUnknown:
			du.Ignore++
			r.keep(tg, e.alloc)
			r.markUnknown(e.alloc)
		case actLater:
			du.Ignore++
			if !r.awaitingFollowUp(e.alloc) {
				r.later = append(r.later, laterReschedule{alloc: e.alloc, at: e.at})
			}
		}
	}
	missing := r.placeMissing(tg, len(entries), used, du)
	if r.rolling(tg) && !r.rolloutFailed && (missing > 0 || du.DestructiveUpdate > 0 || du.InPlaceUpdate > 0 || canaryNames >= 0) {
		r.ensureDeployment(tg)
	}
}

func (r *reconciler) keep(tg *structs.TaskGroup, a *structs.Allocation) {
	r.result.kept[tg.Name] = append(r.result.kept[tg.Name], a)
}

// inPlace returns the alloc moved to the current job version.
func (r *reconciler) inPlace(a *structs.Allocation) *structs.Allocation {
	c := a.CopySkipJob()
	c.Job = r.job
	c.EvalID = r.eval.ID
	return c
}

// placeMissing places new allocs under the lowest free names.
func (r *reconciler) placeMissing(tg *structs.TaskGroup, have int, used map[uint]bool, du *structs.DesiredUpdates) int {
	var idx uint
	missing := max(tg.Count-have, 0)
	r.result.place = slices.Grow(r.result.place, missing)
	for i := 0; i < missing; i++ {
		for used[idx] {
			idx++
		}
		used[idx] = true
		r.result.place = append(r.result.place, placeRequest{tg: tg, name: structs.AllocName(r.job.ID, tg.Name, idx), index: idx})
		du.Place++
	}
	return missing
}

// awaitingFollowUp reports whether a failed alloc already has a pending
// follow-up eval (made by an earlier eval): it waits for that one.
func (r *reconciler) awaitingFollowUp(a *structs.Allocation) bool {
	return a.FollowupEvalID != "" && r.followUpPending != nil && r.followUpPending(a.FollowupEvalID)
}

// createFollowUps makes one delayed alloc-failure eval per window of
// reschedule times and points the failed allocs at it.
func (r *reconciler) createFollowUps() {
	slices.SortFunc(r.later, func(a, b laterReschedule) int { return a.at.Compare(b.at) })
	var cur *structs.Evaluation
	var windowStart time.Time
	for _, l := range r.later {
		if cur == nil || l.at.Sub(windowStart) > followUpBatchWindow {
			windowStart = l.at
			cur = r.followUpEval(l.at)
			if r.followUpID != nil {
				cur = r.followUpID(cur)
			}
			r.result.followUps = append(r.result.followUps, cur)
		}
		c := l.alloc.CopySkipJob()
		c.FollowupEvalID = cur.ID
		r.result.attrUpdate = append(r.result.attrUpdate, c)
	}
}

func (r *reconciler) followUpEval(at time.Time) *structs.Evaluation {
	return &structs.Evaluation{
		ID: idFrom(r.ids), Namespace: r.eval.Namespace, Priority: r.eval.Priority, Type: r.eval.Type,
		TriggeredBy: structs.EvalTriggerRetryFailedAlloc, JobID: r.eval.JobID,
		JobModifyIndex: r.job.JobModifyIndex, Status: structs.EvalStatusPending,
		WaitUntil: at, PreviousEval: r.eval.ID,
		CreateTime: r.now.UnixNano(), ModifyTime: r.now.UnixNano(),
	}
}

// migrate replaces an alloc leaving a draining node. Before the drain's
// deadline the alloc is stopped only once its replacement is placed, so a
// migration with nowhere to go keeps it running; at the deadline (or on a
// force drain) it is stopped regardless, and a replacement that does not
// fit blocks, which lets the drain complete.
func (r *reconciler) migrate(a *structs.Allocation, req *placeRequest) {
	if node := r.nodes[a.NodeID]; node != nil && node.DrainStrategy != nil && node.DrainStrategy.ForcedAt(r.now) {
		r.result.stop = append(r.result.stop, stopRequest{alloc: a, desc: allocMigrating})
	} else {
		req.stopPrevious, req.stopDesc = true, allocMigrating
	}
	r.result.place = append(r.result.place, *req)
}
