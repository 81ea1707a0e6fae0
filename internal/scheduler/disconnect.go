package scheduler

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Descriptions of the stops decided when a disconnected node reconnects.
const (
	allocReconnectedKeptOriginal    = "alloc not needed as the original reconnected"
	allocReconnectedKeptReplacement = "alloc not needed as its replacement was kept after the node reconnected"
)

// A group with a `disconnect` block (or max_client_disconnect) tolerates
// its node missing heartbeats: the node goes disconnected, its allocs are
// marked unknown and get a replacement (disconnect.replace, default true),
// and one max-disconnect-timeout eval is written for when lost_after
// passes; that eval marks them lost. If the node heartbeats again first,
// its reconnect eval keeps one of each original and its replacement
// (disconnect.reconcile) and stops the other.

// disconnectAction decides for a live alloc on a disconnected node:
// actDisconnect while lost_after has not passed, actLost once it has (or
// when the group does not tolerate disconnects).
func (r *reconciler) disconnectAction(tg *structs.TaskGroup, node *structs.Node) allocAction {
	timeout, ok := tg.DisconnectTimeout()
	if !ok || !r.now.Before(structs.DisconnectDeadline(node, timeout)) {
		return actLost
	}
	return actDisconnect
}

// markDisconnected records an alloc of a disconnected node as unknown,
// points it at the max-disconnect-timeout eval for its deadline, and asks
// for its replacement when the group wants one.
func (r *reconciler) markDisconnected(tg *structs.TaskGroup, a *structs.Allocation, req placeRequest, du *structs.DesiredUpdates) {
	node := r.nodes[a.NodeID]
	timeout, _ := tg.DisconnectTimeout()
	if a.ClientStatus != structs.AllocClientStatusUnknown || !r.awaitingFollowUp(a) {
		c := a.CopySkipJob()
		c.ClientStatus = structs.AllocClientStatusUnknown
		c.FollowupEvalID = r.disconnectTimeoutEval(structs.DisconnectDeadline(node, timeout)).ID
		r.result.attrUpdate = append(r.result.attrUpdate, c)
	}
	if tg.ReplaceDisconnected() && !tg.PreventRescheduleOnLost {
		du.Place++
		r.result.place = append(r.result.place, req)
	}
}

// lostUnlessPrevented is the action for a live alloc whose node is gone
// (down, or disconnected past lost_after): stopped as lost and replaced,
// or, when its group sets prevent_reschedule_on_lost, kept as unknown
// until the node is back, as Nomad does.
func lostUnlessPrevented(tg *structs.TaskGroup) allocAction {
	if tg.PreventRescheduleOnLost {
		return actUnknown
	}
	return actLost
}

// markUnknown records an alloc of a gone node as unknown (once): it keeps
// counting toward its group, so nothing replaces it. The client reports
// its real status when the node is back (client.resendIfUnknown).
func (r *reconciler) markUnknown(a *structs.Allocation) {
	if a.ClientStatus == structs.AllocClientStatusUnknown {
		return
	}
	c := a.CopySkipJob()
	c.ClientStatus = structs.AllocClientStatusUnknown
	c.ClientDescription = allocUnknownNoReschedule
	r.result.attrUpdate = append(r.result.attrUpdate, c)
}

// allocUnknownNoReschedule describes an alloc kept by markUnknown.
const allocUnknownNoReschedule = "alloc is unknown since its node is lost; prevent_reschedule_on_lost keeps it from being replaced"

// disconnectTimeoutEval returns the one max-disconnect-timeout eval of
// this pass for a deadline (allocs of one node share it).
func (r *reconciler) disconnectTimeoutEval(at time.Time) *structs.Evaluation {
	for _, e := range r.result.followUps {
		if e.TriggeredBy == structs.EvalTriggerMaxDisconnectTimeout && e.WaitUntil.Equal(at) {
			return e
		}
	}
	e := r.followUpEval(at)
	e.TriggeredBy = structs.EvalTriggerMaxDisconnectTimeout
	if r.followUpID != nil {
		e = r.followUpID(e)
	}
	r.result.followUps = append(r.result.followUps, e)
	return e
}

// resolveReplaced handles the originals that are still live although a
// live replacement was placed for them (allocs of a node that
// disconnected). It returns the allocs classify must not count: stopped
// here, or (on a node still disconnected) standing in for their
// replacement. An original whose replacement is gone counts again.
func (r *reconciler) resolveReplaced(tg *structs.TaskGroup, allocs []*structs.Allocation, du *structs.DesiredUpdates) map[string]bool {
	skip := map[string]bool{}
	replacement := map[string]*structs.Allocation{}
	for _, a := range allocs {
		if a.PreviousAllocation != "" && !a.TerminalStatus() {
			replacement[a.PreviousAllocation] = a
		}
	}
	for _, a := range allocs {
		rep, replaced := replacement[a.ID]
		if !replaced || a.TerminalStatus() {
			continue
		}
		skip[a.ID] = true
		node := r.nodes[a.NodeID]
		switch {
		case node == nil || node.Status == structs.NodeStatusDown:
			r.stopLost(a, du)
		case node.Status == structs.NodeStatusDisconnected:
			if r.disconnectAction(tg, node) == actLost {
				r.stopLost(a, du)
			}
		case pickReconnected(tg, a, rep) == a:
			skip[a.ID], skip[rep.ID] = false, true
			r.stop(rep, allocReconnectedKeptOriginal, du)
		default:
			r.stop(a, allocReconnectedKeptReplacement, du)
		}
	}
	return skip
}

func (r *reconciler) stopLost(a *structs.Allocation, du *structs.DesiredUpdates) {
	r.result.stop = append(r.result.stop, stopRequest{alloc: a, desc: allocLost, clientStatus: structs.AllocClientStatusLost})
	du.Stop++
}

func (r *reconciler) stop(a *structs.Allocation, desc string, du *structs.DesiredUpdates) {
	r.result.stop = append(r.result.stop, stopRequest{alloc: a, desc: desc})
	du.Stop++
}

// pickReconnected returns which of a reconnected original and its
// replacement to keep, per the group's disconnect.reconcile.
func pickReconnected(tg *structs.TaskGroup, original, replacement *structs.Allocation) *structs.Allocation {
	switch tg.ReconnectStrategy() {
	case structs.ReconcileOptionKeepReplacement:
		return replacement
	case structs.ReconcileOptionLongestRunning:
		if startedAt(replacement).Before(startedAt(original)) {
			return replacement
		}
		return original
	case structs.ReconcileOptionBestScore:
		if placementScore(replacement) > placementScore(original) {
			return replacement
		}
		return original
	}
	return original // keep_original
}

// startedAt is when the alloc's first task started; an alloc that never
// reported a start counts as started last.
func startedAt(a *structs.Allocation) time.Time {
	var first time.Time
	for _, ts := range a.TaskStates {
		if ts != nil && !ts.StartedAt.IsZero() && (first.IsZero() || ts.StartedAt.Before(first)) {
			first = ts.StartedAt
		}
	}
	if first.IsZero() {
		return time.Unix(1<<62, 0)
	}
	return first
}

// placementScore is the normalized score its node got when the alloc was
// placed.
func placementScore(a *structs.Allocation) float64 {
	if a.Metrics == nil {
		return 0
	}
	for _, m := range a.Metrics.ScoreMetaData {
		if m.NodeID == a.NodeID {
			return m.NormScore
		}
	}
	return 0
}
