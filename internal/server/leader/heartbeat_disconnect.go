package leader

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// missedHeartbeatStatus decides what a node that missed its heartbeat
// becomes: disconnected while any of its live allocs belongs to a group
// that tolerates a disconnect (its `disconnect` block or
// max_client_disconnect), down otherwise. timeout is the longest such
// group's lost_after: the node stays disconnected that long before it is
// marked down. A node already disconnected goes down.
func (l *Leader) missedHeartbeatStatus(node *structs.Node) (status string, timeout time.Duration, err error) {
	if node.Status == structs.NodeStatusDisconnected {
		return structs.NodeStatusDown, 0, nil
	}
	timeout, err = l.longestDisconnectTimeout(node.ID)
	if err != nil || timeout <= 0 {
		return structs.NodeStatusDown, 0, err
	}
	return structs.NodeStatusDisconnected, timeout, nil
}

// longestDisconnectTimeout is the longest lost_after among the groups of
// the node's live allocs; 0 when none tolerates a disconnect.
func (l *Leader) longestDisconnectTimeout(nodeID string) (time.Duration, error) {
	allocs, err := l.srv.State().AllocsByNode(nil, nodeID)
	if err != nil {
		return 0, err
	}
	var longest time.Duration
	for _, a := range allocs {
		if a.TerminalStatus() || a.Job == nil {
			continue
		}
		if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil {
			if t, ok := tg.DisconnectTimeout(); ok && t > longest {
				longest = t
			}
		}
	}
	return longest, nil
}

// disconnectedTimerLeft is how long a disconnected node has left before it
// is marked down, for a new leader re-arming its timer.
func (l *Leader) disconnectedTimerLeft(node *structs.Node) time.Duration {
	timeout, err := l.longestDisconnectTimeout(node.ID)
	if err != nil {
		return 0
	}
	return max(structs.DisconnectDeadline(node, timeout).Sub(l.now()), 0)
}
