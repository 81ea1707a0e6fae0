package leader

import (
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Heartbeats keeps one timer per node on the leader: a node that does not
// heartbeat within its TTL plus the grace period is marked down (which
// writes its node-update evals and gets its allocs replaced), or
// disconnected when its allocs tolerate it (heartbeat_disconnect.go).
type Heartbeats struct {
	l      *Leader
	mu     sync.Mutex
	timers map[string]clock.Timer
	// With Config.ManualDuties a timer only queues its node here (with the
	// timer that fired); stepExpired expires it, unless a heartbeat re-armed
	// the node's timer in between.
	fired []firedTimer
}

type firedTimer struct {
	nodeID string
	timer  clock.Timer
}

func newHeartbeats(l *Leader) *Heartbeats {
	return &Heartbeats{l: l, timers: map[string]clock.Timer{}}
}

// TTL spreads heartbeats so the cluster does at most
// MaxHeartbeatsPerSecond, never below MinHeartbeatTTL, with random
// stagger so nodes registered together do not heartbeat together: a TTL
// in [base, 2*base).
func (h *Heartbeats) TTL() time.Duration {
	h.mu.Lock()
	n := len(h.timers)
	h.mu.Unlock()
	base := h.baseTTL(n)
	return base + time.Duration(h.l.c.Rand(int64(base)))
}

// baseTTL is the shortest TTL handed out while n nodes heartbeat.
func (h *Heartbeats) baseTTL(n int) time.Duration {
	c := h.l.c
	base := c.MinHeartbeatTTL
	if c.MaxHeartbeatsPerSecond > 0 {
		base = max(base, time.Duration(float64(n)/c.MaxHeartbeatsPerSecond*float64(time.Second)))
	}
	return base
}

// FailoverTTL is the TTL a new leader gives every live node of n: the
// longest a leader could have handed out with n nodes (TTL's base doubled
// by the stagger). A node may send its next heartbeat that late;
// re-arming with MinHeartbeatTTL marked healthy nodes of a cluster past
// about 500 nodes down after every leader change.
func (h *Heartbeats) FailoverTTL(n int) time.Duration { return 2 * h.baseTTL(n) }

// Reset (re)arms a node's timer for ttl plus the grace period.
func (h *Heartbeats) Reset(nodeID string, ttl time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.l.c
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
	}
	if !c.ManualDuties {
		h.timers[nodeID] = c.Clock.AfterFunc(ttl+c.HeartbeatGrace, func() { h.expire(nodeID) })
		return
	}
	var t clock.Timer
	t = c.Clock.AfterFunc(ttl+c.HeartbeatGrace, func() {
		h.mu.Lock()
		h.fired = append(h.fired, firedTimer{nodeID, t})
		h.mu.Unlock()
	})
	h.timers[nodeID] = t
}

// stepExpired expires the nodes whose timers fired and were not re-armed
// since (manual mode); it reports whether there were any.
func (h *Heartbeats) stepExpired() bool {
	h.mu.Lock()
	var due []string
	for _, f := range h.fired {
		if h.timers[f.nodeID] == f.timer {
			due = append(due, f.nodeID)
		}
	}
	h.fired = nil
	h.mu.Unlock()
	for _, nodeID := range due {
		h.expire(nodeID)
	}
	return len(due) > 0
}

// Clear stops a node's timer (node deregistered or marked down).
func (h *Heartbeats) Clear(nodeID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.timers[nodeID]; ok {
		t.Stop()
		delete(h.timers, nodeID)
	}
}

// stopAll stops every timer (leadership lost).
func (h *Heartbeats) stopAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, t := range h.timers {
		t.Stop()
		delete(h.timers, id)
	}
	h.fired = nil
}

// expire handles a silent node: down, or disconnected while its allocs
// tolerate it (then its timer is re-armed for the disconnect window, after
// which it goes down). It runs in its own goroutine (the clock's
// AfterFunc), so it may write through raft.
func (h *Heartbeats) expire(nodeID string) {
	h.mu.Lock()
	delete(h.timers, nodeID)
	h.mu.Unlock()
	l := h.l
	if !l.active.Load() {
		return
	}
	node, err := l.srv.State().NodeByID(nil, nodeID)
	if err != nil || node == nil || node.Status == structs.NodeStatusDown {
		return
	}
	status, window, err := l.missedHeartbeatStatus(node)
	if err != nil {
		l.log.Error("reading the allocs of a silent node failed", "node", nodeID, "error", err)
		return
	}
	l.log.Warn("node missed its heartbeat", "node", nodeID, "status", status)
	if err := l.srv.SetNodeStatus(nodeID, status); err != nil {
		l.log.Error("marking silent node failed", "node", nodeID, "status", status, "error", err)
		return
	}
	if status == structs.NodeStatusDisconnected {
		h.Reset(nodeID, window)
	}
}

// rearmAll gives every live node a fresh timer when this server becomes
// leader: the failover TTL plus grace from now, so nodes have time to
// find the new leader before being marked down.
func (h *Heartbeats) rearmAll() error {
	nodes, err := h.l.srv.State().Nodes(nil)
	if err != nil {
		return err
	}
	failover := h.FailoverTTL(len(nodes))
	for _, n := range nodes {
		switch n.Status {
		case structs.NodeStatusDown:
		case structs.NodeStatusDisconnected:
			h.Reset(n.ID, h.l.disconnectedTimerLeft(n))
		default:
			h.Reset(n.ID, failover)
		}
	}
	return nil
}

// Active is the number of nodes with a live heartbeat timer
// (nomad.nomad.heartbeat.active).
func (h *Heartbeats) Active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.timers)
}
