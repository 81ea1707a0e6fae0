package cluster

import (
	"context"
	"time"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"
)

// reconcileInterval is how often the leader re-checks every member even
// without a membership event.
const reconcileInterval = 30 * time.Second

// ReconcileMembers is a leader duty: it keeps raft's configuration in step
// with gossip. Alive servers become raft peers (through autopilot, which
// promotes them to voters once stable) at their current address; servers
// that left are removed. Failed servers stay until they return or
// autopilot's dead-server cleanup (or force-leave) removes them. Without
// gossip it returns at once.
func (c *Cluster) ReconcileMembers(ctx context.Context) {
	if c.serf == nil {
		return
	}
	for {
		c.ReconcileOnce()
		select {
		case <-ctx.Done():
			return
		case <-c.reconcile:
		case <-time.After(reconcileInterval):
		}
	}
}

// ReconcileOnce is ReconcileMembers' step: one pass over the members
// (none without gossip).
func (c *Cluster) ReconcileOnce() {
	if c.serf == nil {
		return
	}
	f := c.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		c.log.Warn("reconcile: read raft configuration", "error", err)
		return
	}
	current := f.Configuration().Servers
	for _, m := range c.Servers() {
		switch m.Status {
		case serf.StatusAlive:
			c.addRaftPeer(m, current)
		case serf.StatusLeft:
			c.removeRaftPeer(m, current)
		}
	}
}

// addRaftPeer makes m a raft peer at its gossiped address, replacing a
// stale entry that holds the address under another ID.
func (c *Cluster) addRaftPeer(m Member, current []raft.Server) {
	for _, srv := range current {
		if string(srv.ID) == m.ID && string(srv.Address) == m.RPCAddr {
			return // already a peer, at the right address
		}
	}
	for _, srv := range current {
		if string(srv.Address) == m.RPCAddr && string(srv.ID) != m.ID {
			c.log.Info("reconcile: removing a stale raft peer that held a member's address", "id", srv.ID, "address", srv.Address)
			if err := c.raft.RemoveServer(srv.ID, 0, 0).Error(); err != nil {
				c.log.Warn("reconcile: remove stale peer", "error", err)
				return
			}
		}
	}
	var err error
	switch {
	case c.autopilot != nil && m.ID != c.cfg.NodeID && !isPeer(current, m.ID):
		err = c.autopilot.AddServer(autopilotServer(m, false))
	case isNonvoter(current, m.ID):
		// A known peer at a new address keeps its suffrage.
		err = c.raft.AddNonvoter(raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr), 0, 0).Error()
	default:
		err = c.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr), 0, 0).Error()
	}
	if err != nil {
		c.log.Warn("reconcile: add raft peer", "member", m.Name, "error", err)
		return
	}
	c.log.Info("reconcile: raft peer added or updated", "member", m.Name, "id", m.ID, "address", m.RPCAddr)
}

func isPeer(current []raft.Server, id string) bool {
	for _, srv := range current {
		if string(srv.ID) == id {
			return true
		}
	}
	return false
}

func isNonvoter(current []raft.Server, id string) bool {
	for _, srv := range current {
		if string(srv.ID) == id {
			return srv.Suffrage == raft.Nonvoter
		}
	}
	return false
}

// removeRaftPeer removes a server that left the cluster.
func (c *Cluster) removeRaftPeer(m Member, current []raft.Server) {
	if !isPeer(current, m.ID) || m.ID == c.cfg.NodeID {
		return
	}
	if err := c.raft.RemoveServer(raft.ServerID(m.ID), 0, 0).Error(); err != nil {
		c.log.Warn("reconcile: remove raft peer", "member", m.Name, "error", err)
		return
	}
	c.log.Info("reconcile: raft peer removed (left)", "member", m.Name, "id", m.ID)
}
