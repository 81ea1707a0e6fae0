package structs

import "time"

// The group `disconnect` block (and the older max_client_disconnect and
// stop_after_client_disconnect) as the scheduler, the heartbeat timers and
// the client read them. The newer block wins where both are set.

// DisconnectTimeout returns how long the group's allocs may stay unknown
// on a disconnected node before they are lost; ok is false when the group
// does not tolerate a disconnect (its allocs are lost at once).
func (tg *TaskGroup) DisconnectTimeout() (timeout time.Duration, ok bool) {
	if d := tg.Disconnect; d != nil && d.LostAfter > 0 {
		return d.LostAfter, true
	}
	if tg.MaxClientDisconnect != nil && *tg.MaxClientDisconnect > 0 {
		return *tg.MaxClientDisconnect, true
	}
	return 0, false
}

// ReplaceDisconnected reports whether an alloc that became unknown gets a
// replacement while its node is disconnected (replace, default true).
func (tg *TaskGroup) ReplaceDisconnected() bool {
	if d := tg.Disconnect; d != nil && d.Replace != nil {
		return *d.Replace
	}
	return true
}

// ReconnectStrategy is which of an original alloc and its replacement is
// kept when the original's node reconnects (reconcile, default
// best_score).
func (tg *TaskGroup) ReconnectStrategy() string {
	if d := tg.Disconnect; d != nil && d.Reconcile != "" {
		return d.Reconcile
	}
	return ReconcileOptionBestScore
}

// StopOnClientDisconnect returns how long a client that cannot reach any
// server keeps the group's allocs running before stopping them.
func (tg *TaskGroup) StopOnClientDisconnect() (after time.Duration, ok bool) {
	if d := tg.Disconnect; d != nil && d.StopOnClientAfter != nil {
		return *d.StopOnClientAfter, true
	}
	if tg.StopAfterClientDisconnect != nil {
		return *tg.StopAfterClientDisconnect, true
	}
	return 0, false
}

// DisconnectDeadline is when an alloc of a group with timeout on a node
// that disconnected at node.StatusUpdatedAt becomes lost.
func DisconnectDeadline(node *Node, timeout time.Duration) time.Time {
	return time.Unix(node.StatusUpdatedAt, 0).Add(timeout)
}
