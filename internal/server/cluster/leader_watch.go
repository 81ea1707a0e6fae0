package cluster

import (
	"context"
	"sync"

	"github.com/hashicorp/raft"
)

// leaderWatch turns raft's leader observations into a channel closed at
// each change, for callers that must notice a new leader while they wait
// on the old one (forwarding, package server).
type leaderWatch struct {
	mu sync.Mutex
	ch chan struct{}
}

// LeaderChanged returns a channel closed the next time raft's view of the
// leader changes on this server (a new leader, or none). Take it before
// reading the leader, then recheck the leader when it closes.
func (c *Cluster) LeaderChanged() <-chan struct{} {
	c.leader.mu.Lock()
	defer c.leader.mu.Unlock()
	if c.leader.ch == nil {
		c.leader.ch = make(chan struct{})
	}
	return c.leader.ch
}

func (c *Cluster) leaderChanged() {
	c.leader.mu.Lock()
	defer c.leader.mu.Unlock()
	if c.leader.ch != nil {
		close(c.leader.ch)
		c.leader.ch = nil
	}
}

// watchLeader follows raft's leader observations until ctx ends. The
// observer never blocks raft: an observation dropped from a full buffer is
// covered by the one before it, which wakes every waiter anyway.
func (c *Cluster) watchLeader(ctx context.Context) {
	obs := make(chan raft.Observation, 64)
	o := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	c.raft.RegisterObserver(o)
	defer c.raft.DeregisterObserver(o)
	for {
		select {
		case <-ctx.Done():
			c.leaderChanged() // waiters recheck, and find the server shut down
			return
		case <-obs:
			c.leaderChanged()
		}
	}
}
